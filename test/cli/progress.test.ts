import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ProgressLine, progressText } from '../../src/cli/progress.ts';

function stream(isTTY: boolean) {
  const out: string[] = [];
  const s = new Writable({
    write(chunk, _enc, done) {
      out.push(String(chunk));
      done();
    },
  }) as unknown as NodeJS.WriteStream;
  (s as { isTTY?: boolean }).isTTY = isTTY;
  return { s, out };
}

describe('progress display', () => {
  it('regression: progress showed "fetch: 0" during a 3-second parse', () => {
    expect(progressText({ phase: 'fetch', done: 0 }, 3.2)).toBe('fetch: working (3 s)');
    expect(progressText({ phase: 'fetch', done: 0 }, 0.2)).toBe('fetch: working');
  });

  it('regression: progress showed "0/s" rates', () => {
    expect(progressText({ phase: 'write', done: 0, total: 100 }, 5)).toBe('write [------------------------] 0% 0/100');
    expect(progressText({ phase: 'write', done: 3, total: 100 }, 0.5)).not.toMatch(/\/s/);
    expect(progressText({ phase: 'write', done: 3, total: 100 }, 60)).toBe('write [#-----------------------] 3% 3/100 3.0/min ETA 1940s');
    expect(progressText({ phase: 'write', done: 50, total: 100 }, 10)).toBe('write [############------------] 50% 50/100 5/s ETA 10s');
  });

  it('regression: progress wrote noise on a non-TTY stderr (a line every few seconds, repeated)', () => {
    const { s, out } = stream(false);
    const p = new ProgressLine({ stream: s });
    for (let i = 0; i < 50; i++) p.update({ phase: 'fetch', done: 0 });
    for (let i = 1; i <= 100; i++) p.update({ phase: 'write', done: i, total: 100 });
    p.done();
    // One line when each phase starts, one when it finishes; no escape sequences.
    expect(out).toHaveLength(3);
    expect(out[0]).toBe('fetch: working\n');
    expect(out[1]).toMatch(/^write \[#?-+\] 1% 1\/100/);
    expect(out[2]).toMatch(/^write \[#{24}\] 100% 100\/100/);
    expect(out.join('')).not.toContain('\x1b');
  });

  it('redraws one line on a TTY', () => {
    const { s, out } = stream(true);
    const p = new ProgressLine({ stream: s });
    p.update({ phase: 'write', done: 1, total: 2 });
    p.done();
    expect(out[0]).toMatch(/^\r\x1b\[2Kwrite /);
    expect(out.at(-1)).toBe('\r\x1b[2K');
  });
});
