import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { CalendarClient } from '../../src/api/index.ts';
import { parseConfig } from '../../src/config/load.ts';
import type { ReportJson } from '../../src/report/report.ts';
import { runCsvImport } from '../../src/runs/import-csv.ts';
import { MemoryLedger, RedisLedger } from '../../src/write/ledger.ts';
import { ledgerOnSite } from '../../src/write/ledger-on-site.ts';
import { icsImportSuite } from '../support/ics-import.ts';
import { importWorkers } from '../support/import-workers.ts';
import { testPrefix, testRedis } from '../support/redis.ts';
import { PASSWORD, USER, testSite } from '../support/site.ts';

/**
 * Found trying calsync against a real TEC 6.17.2 site as a user would: a site emptied
 * (`realsite.sh reset`, a site restored from an older backup) while calsync's Redis was kept. The
 * rerun said "file unchanged since the last run: nothing to do" (and with a changed feed, every
 * event unchanged) and wrote nothing, leaving the site empty. Now every run reads one record of its
 * ledger back by id; when the site has none of the records it reads, the ledger is set aside and
 * every event is written again by slug.
 */

const vevent = (n: number) => [
  'BEGIN:VEVENT', `UID:ev${n}@test`, 'DTSTAMP:20270101T000000Z', `DTSTART:202705${String(n).padStart(2, '0')}T180000Z`, 'DURATION:PT1H',
  `SUMMARY:Talk ${n}`, `LOCATION:Hall ${n % 2}`, 'CATEGORIES:Talks', 'END:VEVENT',
];
const EVENTS = 6;
const FEED = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//calsync test//EN', ...Array.from({ length: EVENTS }, (_, i) => vevent(i + 1)).flat(), 'END:VCALENDAR', ''].join('\r\n');

interface Dumped { events: Array<{ id: number; title: string; status: string }>; venues: Array<{ id: number }> }

describe('regression: a site reset while Redis was kept got nothing written again (the rerun reported its events unchanged)', () => {
  const suite = icsImportSuite(FEED);
  // The default refresh: an unchanged feed after a clean run is skipped (nothing to do).
  const run = (over = {}) => suite.run({ refreshAfterMs: undefined, ...over });
  const dump = () => suite.env.sandbox.dump('en') as unknown as Dumped;
  const resetSite = async () => void (await fetch(`${suite.env.sandbox.origin}/__sandbox/reset`, { method: 'POST' }));
  const ledger = () => new RedisLedger(suite.redis, { site: suite.env.site.key, language: 'en', source: 'talks' }, suite.ctx.prefix);
  const setAsideWarnings = (r: { warnings: string[] }) => r.warnings.filter((w) => w.includes('no longer has the events'));

  it('the rerun writes every event, venue and term again, once; the run after it has nothing to do', async () => {
    expect((await run()).counts.events.created).toBe(EVENTS);
    await resetSite();
    expect(dump().events).toEqual([]);

    suite.env.sandbox.resetStats();
    const r = await run();
    expect(r.notModified).toBeFalsy();
    expect(r.counts.events).toMatchObject({ created: EVENTS, unchanged: 0, failed: 0 });
    expect(r.counts.venues).toMatchObject({ created: 2, failed: 0 });
    expect(setAsideWarnings(r)).toHaveLength(1);
    expect(setAsideWarnings(r)[0]).toMatch(/^the site no longer has the events calsync wrote there for talks \(ids \d+, \d+, \d+ are not on it: was it reset, or restored from an older backup\?\): calsync's ledger of them was set aside and every event is written again$/);
    // The three records drawn looked up by id, and nothing else read one by one.
    expect(suite.env.sandbox.stats().byRoute['GET /events/:id']).toBe(3);
    expect(dump().events.map((e) => e.title).sort()).toEqual(Array.from({ length: EVENTS }, (_, i) => `Talk ${i + 1}`).sort());
    expect(dump().venues).toHaveLength(2);

    suite.env.sandbox.resetStats();
    const next = await run();
    expect(next.notModified).toBe(true);
    expect(setAsideWarnings(next)).toEqual([]);
    // One record read back, found: the ledger holds.
    expect(suite.env.sandbox.stats().byRoute['GET /events/:id']).toBe(1);
    expect(dump().events).toHaveLength(EVENTS);
  });

  it('a dry run after the reset shows the creates and leaves the ledger as it was', async () => {
    await run();
    await resetSite();
    const before = await ledger().size('events');
    const r = await run({ dryRun: true });
    expect(r.counts.events).toMatchObject({ created: EVENTS, unchanged: 0 });
    expect(setAsideWarnings(r)[0]).toContain('a real run sets calsync\'s ledger of them aside and writes every event again');
    expect(await ledger().size('events')).toBe(before);
    expect(dump().events).toEqual([]);
  });

  it('events trashed or deleted one by one on the site are someone\'s choice: the ledger is kept and they stay as they are', async () => {
    await run();
    const entries: Array<[string, { id: number }]> = [];
    for await (const pair of ledger().entries('events')) entries.push(pair);
    // One record deleted for good and one in the trash: whichever three the check draws, one is there.
    const wp = new CalendarClient({ ...suite.env.site.connection, namespace: 'wp/v2' });
    await wp.request({ method: 'DELETE', path: `/tribe_events/${entries[0]![1].id}`, query: { force: 'true' } });
    await wp.close();
    await suite.env.client.events.delete(entries[1]![1].id);

    const r = await run({ refreshAfterMs: 0 });
    expect(setAsideWarnings(r)).toEqual([]);
    expect(r.counts.events).toMatchObject({ created: 0, unchanged: EVENTS });
    expect(dump().events.filter((e) => e.status === 'publish')).toHaveLength(EVENTS - 2);
    expect(await ledger().size('events')).toBe(EVENTS);
  });

  it('an id the site gave to another record after a reset is not the ledger\'s record', async () => {
    const other = await suite.env.client.events.create({ title: 'Not ours', start_date: '2027-05-01 10:00:00', end_date: '2027-05-01 11:00:00', slug: 'not-ours' }, { lang: 'en' });
    const mine = new MemoryLedger();
    await mine.set('events', 'talks-0123456789ab', { fp: 'x', id: other.id, at: new Date().toISOString() });
    expect(await ledgerOnSite(mine, 'events', suite.env.client, 'en')).toEqual({ state: 'forgotten', ids: [other.id] });
    await mine.set('events', 'not-ours', { fp: 'x', id: other.id, at: new Date().toISOString() });
    expect((await ledgerOnSite(mine, 'events', suite.env.client, 'en')).state).toBe('held');
    expect(await ledgerOnSite(new MemoryLedger(), 'events', suite.env.client, 'en')).toEqual({ state: 'empty' });
  });

  it('a trashed event read back the 6.17.1 way (the record, its slug turned <slug>__trashed) is still there', async () => {
    // Found on a real 6.17.1 site by test/contract/event-read-by-id.test.ts: 6.17.2 refuses the read.
    const old = await testSite({ version: '6.17.1' });
    try {
      const ev = await old.client.events.create({ title: 'Trashed', start_date: '2027-05-01 10:00:00', end_date: '2027-05-01 11:00:00', slug: 'talks-trashed' }, { lang: 'en' });
      await old.client.events.delete(ev.id);
      expect((await old.client.events.get(ev.id, { lang: 'en' })).slug).toBe('talks-trashed__trashed');
      const mine = new MemoryLedger();
      await mine.set('events', 'talks-trashed', { fp: 'x', id: ev.id, at: new Date().toISOString() });
      expect((await ledgerOnSite(mine, 'events', old.client, 'en')).state).toBe('held');
    } finally {
      await old.close();
    }
  });
});

describe('regression: the same for a CSV import, inline and queued', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  let redis: Redis;
  let file: string;
  const ROWS = 5;
  beforeAll(async () => {
    env = await testSite();
    redis = testRedis();
    file = path.join(mkdtempSync(path.join(tmpdir(), 'calsync-reset-')), 'onboarding.csv');
    writeFileSync(file, 'Event Name,Event Start Date,Event Start Time,Event Venue Name\n' + Array.from({ length: ROWS }, (_, i) => `Row ${i},2027-06-0${i + 1},10:00,Hall ${i}`).join('\n') + '\n');
  });
  afterAll(async () => {
    redis.disconnect();
    await env.close();
  });
  const resetSite = async () => void (await fetch(`${env.sandbox.origin}/__sandbox/reset`, { method: 'POST' }));
  const warned = (r: ReportJson) => r.warnings.filter((w) => w.includes('no longer has the events calsync wrote there for onboarding'));

  it('inline: the rerun after a reset creates every row again, and says why', async () => {
    const ctx = { redis, prefix: testPrefix() };
    const params = { location: file, site: env.site, kind: 'events' as const, sourceKey: 'onboarding', lang: 'en' as const, status: 'publish' as const, createTerms: true, dryRun: false, chunkSize: 2, allowFiles: true, defaultTimezone: 'UTC' };
    expect((await runCsvImport(params, ctx)).counts.events.created).toBe(ROWS);
    expect((await runCsvImport(params, ctx)).counts.events.unchanged).toBe(ROWS);
    await resetSite();
    const r = await runCsvImport(params, ctx);
    expect(r.counts.events).toMatchObject({ created: ROWS, unchanged: 0, failed: 0 });
    expect(warned(r)).toHaveLength(1);
    expect(env.sandbox.dump('en').events).toHaveLength(ROWS);
  });

  it('queued: the planner checks the site, and the finish job\'s report says why every row was created again', { timeout: 60_000 }, async () => {
    await resetSite();
    process.env.SB_PW_RESET = PASSWORD;
    const config = parseConfig({
      sites: [{ name: 'sb', restRoot: env.sandbox.url, auth: { user: USER, passwordEnv: 'SB_PW_RESET' } }],
      sources: [{ name: 'onboarding', kind: 'csv' as const, site: 'sb', url: file, chunkSize: 2, defaultTimezone: 'UTC' }],
    });
    const workers = await importWorkers(config, testPrefix());
    const run = async () => {
      const planner = await workers.queue.add('import-csv', { source: 'onboarding' }, { attempts: 1 });
      const planned = (await planner.waitUntilFinished(workers.events, 30_000)) as { finishJobId: string };
      return (await (await workers.queue.getJob(planned.finishJobId))!.waitUntilFinished(workers.events, 30_000)) as ReportJson;
    };
    try {
      expect((await run()).counts.events.created).toBe(ROWS);
      await resetSite();
      const r = await run();
      expect(r.counts.events).toMatchObject({ created: ROWS, unchanged: 0, failed: 0 });
      expect(warned(r)).toHaveLength(1);
      expect(env.sandbox.dump('en').events).toHaveLength(ROWS);
    } finally {
      await workers.close();
    }
  });
});
