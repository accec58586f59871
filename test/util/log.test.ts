import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/util/log.ts';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { lines, log: createLogger({ level: 'info', destination }) };
}

describe('log lines', () => {
  it('regression: a logged JSON line carried `source` twice (child binding + call field)', async () => {
    const { lines, log } = capture();
    log.child({ jobId: '7', source: 'agenda' }).info({ source: 'agenda', events: 3 }, 'feed not modified');
    await new Promise((r) => setImmediate(r));
    expect(lines).toHaveLength(1);
    expect(lines[0]!.match(/"source":/g)).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ jobId: '7', source: 'agenda', events: 3, msg: 'feed not modified' });
  });

  it('keeps call fields that are not bound, and errors as errors', async () => {
    const { lines, log } = capture();
    log.info({ source: 'csv' }, 'inline');
    log.child({ source: 'a' }).error(new Error('boom'), 'failed');
    await new Promise((r) => setImmediate(r));
    expect(JSON.parse(lines[0]!).source).toBe('csv');
    expect(JSON.parse(lines[1]!)).toMatchObject({ source: 'a', err: { message: 'boom' } });
  });
});
