import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sourceKeyFrom } from '../../src/model/identity.ts';
import type { RunContext } from '../../src/runs/context.ts';
import { runIcsImport, type IcsImportParams } from '../../src/runs/import-ics.ts';
import { runCsvImport, type CsvImportParams } from '../../src/runs/import-csv.ts';
import { Queue } from 'bullmq';
import { bullConnection } from '../../src/queue/connection.ts';
import { writeEventsCsv } from '../support/generate-csv.ts';
import { PASSWORD, USER, feedServer, testSite } from '../support/site.ts';
import { redisUrl, testPrefix, testRedis } from '../support/redis.ts';
import { spawnWorker, waitFor, waitForFinish, writeConfig } from '../support/worker-process.ts';
import { runCli } from '../support/cli.ts';

const vevent = (uid: string, day: number) => [
  'BEGIN:VEVENT', `UID:${uid}`, `SUMMARY:Talk ${uid}`, `DTSTART:202705${String(day).padStart(2, '0')}T190000Z`, `DTEND:202705${String(day).padStart(2, '0')}T200000Z`, 'END:VEVENT',
];
const calendar = (uids: string[]) => ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//calsync test//EN', ...uids.flatMap((u, i) => vevent(u, 1 + (i % 28))), 'END:VCALENDAR', ''].join('\r\n');
const TALKS = Array.from({ length: 20 }, (_, i) => `talk-${i}@example.org`);

describe('regression: the same feed imported under a second source key (a file, then its URL) created every event twice', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  let redis: Redis;
  let feed: Awaited<ReturnType<typeof feedServer>>;
  let file: string;
  let ctx: RunContext;
  beforeAll(async () => {
    env = await testSite();
    redis = testRedis();
    feed = await feedServer(calendar(TALKS));
    file = path.join(mkdtempSync(path.join(tmpdir(), 'calsync-trap-')), 'talks.ics');
    writeFileSync(file, calendar(TALKS));
    ctx = { redis, prefix: testPrefix() };
  });
  afterAll(async () => {
    redis.disconnect();
    await feed.close();
    await env.close();
  });

  const params = (location: string, over: Partial<IcsImportParams> = {}): IcsImportParams => ({
    location, site: env.site, sourceKey: sourceKeyFrom(location), lang: 'en', window: { from: new Date('2027-01-01T00:00:00Z'), to: new Date('2027-12-31T00:00:00Z') },
    retire: 'keep', onEdit: 'overwrite', status: 'publish', createTerms: true, categoriesAs: 'categories', dryRun: false, allowFiles: true,
    allow: [new URL(feed.url).host], refreshAfterMs: 0, ...over,
  });
  const events = () => env.sandbox.dump('en').events as { slug: string; title: string }[];

  it('the URL run after the file run is refused with what to pass, and writes nothing', async () => {
    const first = await runIcsImport(params(file), ctx);
    expect(first.counts.events.created).toBe(20);
    expect(sourceKeyFrom(file)).not.toBe(sourceKeyFrom(feed.url));

    const err = await runIcsImport(params(feed.url), ctx).then(() => undefined, (e: unknown) => e as Error & { code?: string });
    expect(err?.code).toBe('source-overlap');
    expect(err?.message).toContain('was already imported as source "talks" (20 of 20 sampled events found there)');
    expect(err?.message).toContain('Rerun with --source talks');
    expect(events()).toHaveLength(20);
  });

  it('with the earlier key the URL run updates those events in place', async () => {
    const r = await runIcsImport(params(feed.url, { sourceKey: 'talks' }), ctx);
    expect(r.counts.events).toMatchObject({ created: 0, failed: 0, read: 20 });
    expect(events()).toHaveLength(20);
  });

  it('--allow-overlap imports the second copy the user asked for; that source is not asked again', async () => {
    const r = await runIcsImport(params(feed.url, { allowOverlap: true }), ctx);
    expect(r.counts.events.created).toBe(20);
    expect(events()).toHaveLength(40);
    const again = await runIcsImport(params(feed.url), ctx);
    expect(again.counts.events).toMatchObject({ created: 0, unchanged: 20 });
  });

  it('a new feed sharing a few events with another source goes through, with a warning naming that source', async () => {
    const mixed = [...TALKS.slice(0, 2), ...Array.from({ length: 18 }, (_, i) => `other-${i}@example.org`)];
    const other = path.join(path.dirname(file), 'festival.ics');
    writeFileSync(other, calendar(mixed));
    const r = await runIcsImport(params(other), ctx);
    expect(r.counts.events.created).toBe(20);
    expect(r.warnings.join('\n')).toMatch(/^2 of 20 sampled events of this source are also source "(talks|127-0-0-1-feed)"'s/m);
  });
});

describe('regression: a CSV imported again under another name (events-nov.csv, then events-dec.csv) created every event twice', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  let redis: Redis;
  let dir: string;
  beforeAll(async () => {
    env = await testSite();
    redis = testRedis();
    dir = mkdtempSync(path.join(tmpdir(), 'calsync-trap-csv-'));
    await writeEventsCsv(path.join(dir, 'events-nov.csv'), { rows: 120, seed: 7 });
    await writeEventsCsv(path.join(dir, 'events-dec.csv'), { rows: 120, seed: 7 });
  });
  afterAll(async () => {
    redis.disconnect();
    await env.close();
  });
  const params = (file: string, over: Partial<CsvImportParams> = {}): CsvImportParams => ({
    location: path.join(dir, file), site: env.site, kind: 'events', sourceKey: sourceKeyFrom(file), lang: 'en', status: 'publish', createTerms: true, dryRun: false, chunkSize: 50, allowFiles: true, ...over,
  });
  const count = () => (env.sandbox.dump('en').events as unknown[]).length;

  it('inline: the renamed file is refused before its first chunk writes, naming the key that updates', async () => {
    const ctx = { redis, prefix: testPrefix() };
    const first = await runCsvImport(params('events-nov.csv'), ctx);
    const created = first.counts.events.created;
    expect(created).toBeGreaterThan(100);
    const err = await runCsvImport(params('events-dec.csv'), ctx).then(() => undefined, (e: unknown) => e as Error & { code?: string });
    expect(err?.code).toBe('source-overlap');
    expect(err?.message).toContain('was already imported as source "events-nov"');
    expect(count()).toBe(created);
    const again = await runCsvImport(params('events-dec.csv', { sourceKey: 'events-nov' }), ctx);
    expect(again.counts.events).toMatchObject({ created: 0, failed: 0 });
    expect(count()).toBe(created);
  });

  it('queued: the planner of the second config source fails with source-overlap and no chunk is enqueued', async () => {
    const prefix = testPrefix();
    const config = writeConfig({
      sites: [{ name: 'sb', restRoot: env.sandbox.url, auth: { user: USER, passwordEnv: 'SB_PASSWORD' } }],
      sources: [
        { name: 'nov', kind: 'csv', site: 'sb', url: path.join(dir, 'events-nov.csv'), chunkSize: 40 },
        { name: 'dec', kind: 'csv', site: 'sb', url: path.join(dir, 'events-dec.csv'), chunkSize: 40 },
      ],
    });
    const queue = new Queue('import', { connection: bullConnection(redisUrl()), prefix });
    const worker = spawnWorker({ config, redisUrl: redisUrl(), prefix, env: { SB_PASSWORD: PASSWORD } });
    try {
      const nov = await queue.add('import-csv', { source: 'nov' }, { attempts: 1 });
      await waitForFinish(queue, nov, 120_000);
      const before = count();
      const dec = await queue.add('import-csv', { source: 'dec' }, { attempts: 1 });
      const failed = await waitFor('the dec planner to fail', async () => {
        const j = await queue.getJob(dec.id as string);
        return j?.failedReason ? j : undefined;
      }, 60_000);
      expect(failed.failedReason).toContain('was already imported as source "nov"');
      expect((await queue.getJobs(['waiting', 'active', 'completed', 'failed', 'delayed'])).filter((j) => j.name === 'import-csv-chunk' && (j.data as { payload: { source?: string } }).payload.source === 'dec')).toHaveLength(0);
      expect(count()).toBe(before);
    } finally {
      await worker.kill('SIGTERM');
      await queue.close();
    }
  });
});

describe('regression: a queued import refused for its source key told the user to pass --source, which `enqueue` did not take', () => {
  it('`enqueue import-ics <url> --source <key> --allow-overlap` queues both in the payload the worker reads', async () => {
    const prefix = testPrefix();
    const config = writeConfig({ sites: [{ name: 'sb', restRoot: 'http://127.0.0.1:9/wp-json' }] });
    const r = await runCli(['--config', config, '--redis', redisUrl(), '--prefix', prefix, 'enqueue', 'import-ics', 'https://feeds.example.org/talks.ics', '--site', 'sb', '--source', 'talks', '--allow-overlap'], {});
    expect(r.code, r.stderr).toBe(0);
    const queue = new Queue('import', { connection: bullConnection(redisUrl()), prefix });
    try {
      const [job] = await queue.getJobs(['waiting', 'prioritized', 'delayed']);
      expect(job?.data).toMatchObject({ location: 'https://feeds.example.org/talks.ics', site: 'sb', source: 'talks', allowOverlap: true });
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });
});
