import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueueEvents, type Queue } from 'bullmq';
import { JOBS } from '../../jobs/index.ts';
import { parseConfig } from '../../src/config/load.ts';
import { bullConnection } from '../../src/queue/connection.ts';
import { waitForRun } from '../../src/queue/follow.ts';
import { openQueues, startWorkers } from '../../src/queue/worker.ts';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.ts';
import { generateIcsFeed } from '../support/generate-ics.ts';
import { createLogger } from '../../src/util/log.ts';
import { redisUrl, testPrefix } from '../support/redis.ts';
import { feedServer } from '../support/site.ts';

/**
 * Issue 14 part 1, replayed: an attacker who can add a job (Redis, the dashboard) tries to turn
 * the worker against its own credentials, the network behind it, and its file system.
 */

const SECRET = 'app-password-of-the-real-site';

/** A listener that records every Authorization header sent to it (the attacker's server). */
async function attackerListener(): Promise<{ url: string; authorizations: string[]; requests: number; close(): Promise<void> }> {
  const state = { url: '', authorizations: [] as string[], requests: 0, close: async () => {} };
  const server = http.createServer((req, res) => {
    state.requests++;
    if (req.headers.authorization) state.authorizations.push(req.headers.authorization);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"routes":{},"namespaces":["calendar/events/v1"],"events":[],"total":0,"total_pages":0}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () => new Promise<void>((r) => {
    server.closeAllConnections();
    server.close(() => r());
  });
  return state;
}

describe('queue payloads cannot turn the worker against its owner (issue 14 part 1)', () => {
  let site: Sandbox;
  let dir: string;
  let prefix: string;
  let queues: ReturnType<typeof openQueues>;
  let events: QueueEvents;
  let running: Awaited<ReturnType<typeof startWorkers>>;
  const saved = { user: process.env.CALSYNC_USER, password: process.env.CALSYNC_PASSWORD };

  beforeAll(async () => {
    site = await startSandbox({ port: 0, user: 'admin', password: SECRET });
    dir = mkdtempSync(path.join(tmpdir(), 'calsync-trust-'));
    const csv = path.join(dir, 'bad.csv');
    // 250 rows with no usable start date: every one is rejected.
    writeFileSync(csv, `title,start_date\n${Array.from({ length: 250 }, (_, i) => `Row ${i},not-a-date`).join('\n')}\n`);
    process.env.TRUST_PW = SECRET;
    // Ambient credentials, as an operator running inline imports would have them.
    process.env.CALSYNC_USER = 'admin';
    process.env.CALSYNC_PASSWORD = SECRET;
    const config = parseConfig({
      dataDir: dir,
      sites: [{ name: 'sb', restRoot: site.url, auth: { user: 'admin', passwordEnv: 'TRUST_PW' } }],
      sources: [{ name: 'bad-rows', kind: 'csv', site: 'sb', url: csv, chunkSize: 50 }],
    });
    prefix = testPrefix();
    running = await startWorkers({ config, redisUrl: redisUrl(), jobs: JOBS, log: createLogger({ level: 'silent' }), prefix, queues: ['import', 'sync'] });
    queues = openQueues(redisUrl(), prefix);
    events = new QueueEvents('import', { connection: bullConnection(redisUrl()), prefix });
    await events.waitUntilReady();
  });
  afterAll(async () => {
    await running.close(5000);
    await events.close();
    for (const q of Object.values(queues)) {
      await q.obliterate({ force: true }).catch(() => undefined);
      await q.close();
    }
    await site.close();
    process.env.CALSYNC_USER = saved.user;
    process.env.CALSYNC_PASSWORD = saved.password;
    if (saved.user === undefined) delete process.env.CALSYNC_USER;
    if (saved.password === undefined) delete process.env.CALSYNC_PASSWORD;
  });

  /** Adds a job as an attacker would (straight into the queue) and returns how it ended. */
  async function attack(queue: Queue, name: string, data: object, syncEvents?: QueueEvents): Promise<{ result?: unknown; error?: string }> {
    const job = await queue.add(name, data, { attempts: 1 });
    try {
      return { result: await waitForRun(job, queue, syncEvents ?? events, { timeoutMs: 30_000 }) };
    } catch (err) {
      return { error: (err as Error).message };
    }
  }

  it('regression: an ad-hoc job named an attacker\'s site URL and the worker sent it the application password', async () => {
    const listener = await attackerListener();
    const feed = await feedServer(generateIcsFeed({ events: 3, seed: 1, start: new Date(Date.UTC(2027, 0, 4)) }));
    const syncEvents = new QueueEvents('sync', { connection: bullConnection(redisUrl()), prefix });
    await syncEvents.waitUntilReady();
    try {
      // `allow` lets the loopback test feed through the guard, as the red team's public feed would.
      const ics = await attack(queues.import, 'import-ics', { location: feed.url, site: `${listener.url}/wp-json`, allow: ['127.0.0.1'], pastDays: 3650, horizonDays: 3650 });
      const csv = await attack(queues.import, 'import-csv', { location: feed.url, site: `${listener.url}/wp-json`, allow: ['127.0.0.1'] });
      const sync = await attack(queues.sync, 'sync-site', { from: `${listener.url}/wp-json`, to: `${listener.url}/wp-json` }, syncEvents);
      expect(listener.authorizations).toEqual([]);
      expect(listener.requests).toBe(0);
      for (const r of [ics, csv, sync]) expect(r.error).toMatch(/invalid .* payload: .*site declared in the config/);
    } finally {
      await syncEvents.close();
      await listener.close();
      await feed.close();
    }
  });

  it('regression: a job\'s own allow list switched the SSRF guard off and an internal service was read back', async () => {
    let internalRequests = 0;
    const internal = http.createServer((_req, res) => {
      internalRequests++;
      res.writeHead(200, { 'content-type': 'text/calendar' });
      res.end(generateIcsFeed({ events: 2, seed: 7, start: new Date(Date.UTC(2027, 0, 4)) }).replace(/SUMMARY:[^\r\n]*/g, 'SUMMARY:INTERNAL-ONLY'));
    });
    await new Promise<void>((r) => internal.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(internal.address() as AddressInfo).port}/admin.ics`;
    try {
      const withAllow = await attack(queues.import, 'import-ics', { location: url, site: 'sb', allow: ['127.0.0.1'], pastDays: 3650, horizonDays: 3650 });
      expect(JSON.stringify(site.dump('en'))).not.toContain('INTERNAL-ONLY');
      expect(withAllow.error).toMatch(/invalid import-ics payload: .*allow/);
      // Without its own allow list the same job reaches the guard, which refuses the address.
      const plain = await attack(queues.import, 'import-ics', { location: url, site: 'sb', pastDays: 3650, horizonDays: 3650 });
      expect(plain.error).toMatch(/loopback|private|Refused/i);
      expect(internalRequests).toBe(0);
      expect(JSON.stringify(site.dump('en'))).not.toContain('INTERNAL-ONLY');
    } finally {
      internal.closeAllConnections();
      await new Promise<void>((r) => internal.close(() => r()));
    }
  });

  it('regression: an ad-hoc job refused a private address with advice to add it to "the source\'s allow list", which an ad-hoc job has none of', async () => {
    const url = 'http://127.0.0.1:9/private.ics';
    const r = await attack(queues.import, 'import-ics', { location: url, site: 'sb', pastDays: 30, horizonDays: 30 });
    expect(r.error).toMatch(/Refused to fetch/);
    // Where an allow list can be given: a configured source's `allow`, or --allow of the CLI.
    expect(r.error).toContain('`allow` of a configured source, `--allow` of `calsync import`');
  });

  it('regression: a CSV job\'s rejects path overwrote a file of the attacker\'s choosing, even on a dry run', async () => {
    const victim = path.join(mkdtempSync(path.join(tmpdir(), 'calsync-victim-')), 'authorized_keys');
    writeFileSync(victim, 'ssh-ed25519 AAAA owner@host\n');
    const feed = await feedServer('title,start_date\nx,not-a-date\n');
    try {
      const r = await attack(queues.import, 'import-csv', { location: feed.url, site: 'sb', allow: ['127.0.0.1'], rejects: victim, dryRun: true });
      expect(readFileSync(victim, 'utf8')).toBe('ssh-ed25519 AAAA owner@host\n');
      expect(r.error).toMatch(/invalid import-csv payload/);
      const named = await attack(queues.import, 'import-csv', { source: 'bad-rows', rejects: victim, dryRun: true });
      expect(named.error).toMatch(/invalid import-csv payload/);
      expect(readFileSync(victim, 'utf8')).toBe('ssh-ed25519 AAAA owner@host\n');
    } finally {
      await feed.close();
    }
  });

  it('regression: 2 M bad CSV rows kept every raw row in Redis; the rejects file streams to the data dir and a report lists 100 failures plus a count', async () => {
    const r = await attack(queues.import, 'import-csv', { source: 'bad-rows', dryRun: true });
    const report = r.result as { run: { id: string }; counts: { events: { failed: number } }; items: { outcome: string }[]; warnings: string[]; rejectsFile: string };
    expect(r.error).toBeUndefined();
    expect(report.counts.events.failed).toBe(250);
    expect(report.items.filter((i) => i.outcome === 'failed')).toHaveLength(100);
    expect(report.warnings.join('\n')).toMatch(/150 more failed rows/);
    // The file is the data dir's, named by the run; every row is in it, in order.
    expect(report.rejectsFile).toBe(path.join(dir, 'rejects', `${report.run.id}.csv`));
    const lines = readFileSync(report.rejectsFile, 'utf8').trim().split(/\r\n/);
    expect(lines).toHaveLength(251);
    expect(lines[1]).toMatch(/^Row 0,not-a-date,2,/);
    expect(lines[250]).toMatch(/^Row 249,not-a-date,251,/);
    expect(readdirSync(path.join(dir, 'rejects'))).toEqual([`${report.run.id}.csv`]);
    // No chunk's return value in Redis carries raw rows.
    const chunks = (await queues.import.getCompleted(0, -1)).filter((j) => j.name === 'import-csv-chunk');
    expect(chunks.length).toBe(5);
    for (const c of chunks) {
      expect(JSON.stringify(c.returnvalue)).not.toContain('"raw"');
      expect(c.returnvalue.rejects).toBe(50);
    }
    expect(existsSync(path.join(dir, 'rejects', `${report.run.id}.parts`))).toBe(false);
  });
});
