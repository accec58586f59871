import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Queue, QueueEvents } from 'bullmq';
import { JOBS } from '../../jobs/index.ts';
import { parseConfig } from '../../src/config/load.ts';
import { bullConnection } from '../../src/queue/connection.ts';
import { waitForRun } from '../../src/queue/follow.ts';
import { openQueues, startWorkers } from '../../src/queue/worker.ts';
import { generateIcsFeed } from '../support/generate-ics.ts';
import { capturedLog } from '../support/log.ts';
import { redisUrl, testPrefix, testRedis } from '../support/redis.ts';
import { feedServer } from '../support/site.ts';
import { startSandbox } from '../../src/sandbox/index.ts';

/** Every Redis key under a prefix with its value(s) as text. */
async function dumpRedis(prefix: string): Promise<string> {
  const r = testRedis();
  let out = '';
  let cursor = '0';
  do {
    const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
    cursor = next;
    for (const k of keys) {
      const type = await r.type(k);
      const v =
        type === 'string' ? await r.get(k)
        : type === 'hash' ? JSON.stringify(await r.hgetall(k))
        : type === 'list' ? JSON.stringify(await r.lrange(k, 0, -1))
        : type === 'set' ? JSON.stringify(await r.smembers(k))
        : type === 'zset' ? JSON.stringify(await r.zrange(k, 0, -1, 'WITHSCORES'))
        : type === 'stream' ? JSON.stringify(await r.xrange(k, '-', '+'))
        : '';
      out += `${k} ${v}\n`;
    }
  } while (cursor !== '0');
  await r.quit();
  return out;
}

describe('secrets stay secret', () => {
  it('after a run of every job kind, the site passwords are nowhere in Redis, the logs, the reports or the errors', async () => {
    const secret = `pw-${randomBytes(12).toString('hex')}`;
    const basic = Buffer.from(`admin:${secret}`).toString('base64');
    const source = await startSandbox({ port: 0, user: 'admin', password: secret });
    const target = await startSandbox({ port: 0, user: 'admin', password: secret });
    const feed = await feedServer(generateIcsFeed({ events: 40, seed: 2, start: new Date(Date.UTC(2027, 0, 4)) }));
    const dir = mkdtempSync(path.join(tmpdir(), 'calsync-sec-'));
    const csv = path.join(dir, 'e.csv');
    writeFileSync(csv, 'title,start_date,end_date,timezone\nOne,2027-02-01 10:00,2027-02-01 11:00,UTC\nTwo,2027-02-02 10:00,2027-02-02 11:00,UTC\n');
    process.env.SEC_PW = secret;
    process.env.SEC_WRONG = `${secret}-wrong`;
    const config = parseConfig({
      dataDir: dir,
      sites: [
        { name: 'src', restRoot: source.url, auth: { user: 'admin', passwordEnv: 'SEC_PW' } },
        { name: 'dst', restRoot: target.url, auth: { user: 'admin', passwordEnv: 'SEC_PW' } },
        { name: 'bad', restRoot: target.url, auth: { user: 'admin', passwordEnv: 'SEC_WRONG' } },
      ],
      sources: [
        { name: 'feed', kind: 'ics', site: 'src', url: feed.url, allow: [new URL(feed.url).host], pastDays: 3650, horizonDays: 3650 },
        { name: 'rows', kind: 'csv', site: 'src', url: csv },
        { name: 'denied', kind: 'ics', site: 'bad', url: feed.url, allow: [new URL(feed.url).host], pastDays: 3650, horizonDays: 3650 },
      ],
      exports: [{ name: 'out', site: 'src', from: '2026-01-01', to: '2028-12-31', outDir: path.join(dir, 'feeds') }],
      syncs: [{ name: 'copy', from: 'src', to: 'dst', window: { from: '2026-01-01', to: '2028-12-31' } }],
    });
    const { log, text: logText } = capturedLog('trace');
    const prefix = testPrefix();
    const running = await startWorkers({ config, redisUrl: redisUrl(), jobs: JOBS, log, prefix });
    const queues = openQueues(redisUrl(), prefix);
    const events = Object.fromEntries(await Promise.all((['import', 'export', 'sync'] as const).map(async (q) => {
      const e = new QueueEvents(q, { connection: bullConnection(redisUrl()), prefix });
      await e.waitUntilReady();
      return [q, e] as const;
    })));
    const results: unknown[] = [];
    const errors: string[] = [];
    const run = async (q: 'import' | 'export' | 'sync', name: string, data: object) => {
      const job = await (queues[q] as Queue).add(name, data, { attempts: 1 });
      try {
        results.push(await waitForRun(job, queues[q] as Queue, events[q]!, { timeoutMs: 60_000 }));
      } catch (err) {
        errors.push((err as Error).message);
      }
    };
    try {
      await run('import', 'import-ics', { source: 'feed' });
      await run('import', 'import-csv', { source: 'rows' });
      await run('export', 'export-ics', { export: 'out' });
      await run('sync', 'sync-site', { sync: 'copy' });
      await run('import', 'import-ics', { source: 'denied' });

      expect(results.length).toBe(4);
      // The sync's report came from its flow (pages written by the worker), not from the planner.
      expect((results[3] as { counts: { events: { created: number } } }).counts.events.created).toBeGreaterThan(0);
      expect((results[0] as { counts: { events: { created: number } } }).counts.events.created).toBeGreaterThan(0);
      // The wrong password was refused, and said so without repeating it.
      const denied = errors.join('\n') + JSON.stringify((await queues.import.getFailed()).map((j) => j.failedReason));
      expect(denied + JSON.stringify(results)).toMatch(/401|incorrect_password|forbidden/);

      const haystacks = { redis: await dumpRedis(prefix), logs: logText(), reports: JSON.stringify(results), errors: denied };
      expect(haystacks.redis.length).toBeGreaterThan(1000);
      expect(haystacks.logs.length).toBeGreaterThan(100);
      for (const [where, text] of Object.entries(haystacks)) {
        expect(text.includes(secret), `password found in ${where}`).toBe(false);
        expect(text.includes(basic), `Basic credentials found in ${where}`).toBe(false);
      }
    } finally {
      await running.close(5000);
      for (const e of Object.values(events)) await e.close();
      for (const q of Object.values(queues)) {
        await q.obliterate({ force: true }).catch(() => undefined);
        await q.close();
      }
      await feed.close();
      await source.close();
      await target.close();
    }
  }, 120_000);
});
