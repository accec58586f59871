import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { redisUrl, testPrefix, testRedis } from '../support/redis.ts';
import { PASSWORD, USER, testSite } from '../support/site.ts';

/**
 * Found timing CLI runs: an unchanged re-import of a 44k-event feed printed its report 0.9 s after
 * it started and exited at 3.3 s. After a large Redis value (its UID group records, a few MB),
 * redis-parser shrinks its buffer pool on a 50 ms interval that nothing can stop or unref, until the
 * pool is small again. The CLI now ends once its output is written (src/cli/main.ts). Here the value
 * is made large on purpose (20 MB in the records' key), which held the process about 3 s more.
 */

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const feed = (stamp: string) => `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:a@test\r\nDTSTAMP:${stamp}\r\nDTSTART:20270301T100000Z\r\nSUMMARY:Talk\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n`;

/** Runs the CLI; when its report's last line (`took …`) reached stdout, and when it exited. */
function timedRun(args: string[], env: Record<string, string>): Promise<{ code: number | null; reportAt: number; exitAt: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let reportAt = NaN;
    const onData = (d: Buffer) => {
      out += d;
      if (Number.isNaN(reportAt) && /took \d/.test(out)) reportAt = performance.now();
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const timer = setTimeout(() => (child.kill('SIGKILL'), reject(new Error(`ran past 60 s:\n${out}`))), 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, reportAt, exitAt: performance.now(), out });
    });
  });
}

describe('regression: the CLI stayed alive seconds after its report, held by a Redis parser timer', () => {
  let site: Awaited<ReturnType<typeof testSite>>;
  let redis: Redis;
  let dir: string;
  beforeAll(async () => {
    site = await testSite();
    redis = testRedis();
    dir = mkdtempSync(path.join(tmpdir(), 'calsync-exit-'));
  });
  afterAll(async () => {
    redis.disconnect();
    await site.close();
  });

  it('a run that read a 20 MB value exits right after printing its report', async () => {
    const prefix = testPrefix();
    const file = path.join(dir, 'talks.ics');
    const run = () => timedRun(['--prefix', prefix, 'import', 'ics', file, '--site', site.sandbox.url, '--window', '2027-01-01..2027-12-31'], { REDIS_URL: redisUrl(), CALSYNC_USER: USER, CALSYNC_PASSWORD: PASSWORD });
    writeFileSync(file, feed('20270101T000000Z'));
    expect((await run()).code).toBe(0);
    const [records] = await redis.keys(`${prefix}:state:groups:*`);
    expect(records).toBeDefined();
    await redis.set(records!, 'x'.repeat(20_000_000));

    // A new DTSTAMP: the file is read again, and the records with it.
    writeFileSync(file, feed('20270101T000001Z'));
    const r = await run();
    expect(r.code, r.out).toBe(0);
    expect(r.reportAt, r.out).toBeGreaterThan(0);
    // Held by the timer, the gap was about 3 s; without it, the time to close a connection or two.
    expect(r.exitAt - r.reportAt).toBeLessThan(1500);
  });
});
