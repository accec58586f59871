import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Redis } from 'ioredis';
import { runIcsImport, type IcsImportParams } from '../../src/runs/import-ics.ts';
import { RunFailedError } from '../../src/runs/context.ts';
import type { ReportJson } from '../../src/report/report.ts';
import { feedServer, testSite } from '../support/site.ts';
import { testPrefix, testRedis } from '../support/redis.ts';

function vevent(uid: string, summary: string, start: string, extra: string[] = []): string {
  return ['BEGIN:VEVENT', `UID:${uid}`, 'DTSTAMP:20250101T000000Z', `DTSTART;TZID=Europe/Berlin:${start}`, `DURATION:PT1H`, `SUMMARY:${summary}`, ...extra, 'END:VEVENT'].join('\r\n');
}
function calendar(events: string[]): string {
  return ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//calsync tests//EN', ...events, 'END:VCALENDAR', ''].join('\r\n');
}
const BASE = [
  vevent('a@test', 'Alpha', '20250310T100000', ['LOCATION:Town Hall, 1 Main St, Springfield', 'CATEGORIES:Music,Outdoor', 'ORGANIZER;CN=Arts Council:mailto:arts@example.org']),
  vevent('b@test', 'Beta', '20250311T100000', ['LOCATION:Town Hall, 1 Main St, Springfield', 'CATEGORIES:Music']),
  vevent('c@test', 'Gamma', '20250312T100000'),
  vevent('d@test', 'Delta', '20250313T100000'),
  vevent('w@test', 'Weekly', '20250303T180000', ['RRULE:FREQ=WEEKLY;COUNT=4', 'EXDATE;TZID=Europe/Berlin:20250310T180000']),
];

const counted = (r: ReportJson) => {
  const c = r.counts.events;
  return c.created + c.updated + c.unchanged + c.skipped + c.failed;
};

describe('ICS import rules (sandbox + real Redis)', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  let feed: Awaited<ReturnType<typeof feedServer>>;
  let redis: Redis;
  let prefix: string;
  const params = (over: Partial<IcsImportParams> = {}): IcsImportParams => ({
    location: feed.url,
    site: env.site,
    sourceKey: 'rules',
    lang: 'en',
    window: { from: new Date('2025-01-01T00:00:00Z'), to: new Date('2025-12-31T23:59:59Z') },
    retire: 'trash',
    onEdit: 'overwrite',
    defaultTimezone: 'UTC',
    status: 'publish',
    createTerms: true,
    categoriesAs: 'categories',
    dryRun: false,
    allow: [new URL(feed.url).host],
    ...over,
  });
  const run = (over: Partial<IcsImportParams> = {}) => runIcsImport(params(over), { redis, prefix });

  beforeAll(async () => {
    redis = testRedis();
    feed = await feedServer(calendar(BASE));
  });
  beforeEach(async () => {
    env = await testSite();
    prefix = testPrefix();
    feed.set(calendar(BASE));
  });
  afterAll(async () => {
    await feed.close();
    await redis.quit();
  });
  const done = async () => env.close();

  it('imports every occurrence once, with venues, organizers and terms resolved to ids', async () => {
    const r = await run();
    expect(r.counts.events).toMatchObject({ read: 7, created: 7, failed: 0 });
    expect(counted(r)).toBe(r.counts.events.read);
    expect(r.counts.venues.created).toBe(1);
    expect(r.counts.organizers.created).toBe(1);
    expect(r.counts.categories.created).toBe(2);
    const dump = env.sandbox.dump('en');
    expect(dump.events).toHaveLength(7);
    const alpha = dump.events.find((e: any) => e.title === 'Alpha') as any;
    expect(alpha.start_date).toBe('2025-03-10 10:00:00');
    expect(alpha.timezone).toBe('Europe/Berlin');
    expect(alpha.venue.venue).toBe('Town Hall');
    expect(alpha.organizer[0].organizer).toBe('Arts Council');
    expect(alpha.categories.map((c: any) => c.name).sort()).toEqual(['Music', 'Outdoor']);
    // The excluded weekly instance (03-10) is not there; the other three are.
    const weekly = dump.events.filter((e: any) => e.title === 'Weekly').map((e: any) => e.start_date).sort();
    expect(weekly).toEqual(['2025-03-03 18:00:00', '2025-03-17 18:00:00', '2025-03-24 18:00:00']);
    await done();
  });

  it('sends zero writes when the same feed is imported again', async () => {
    await run();
    env.sandbox.resetStats();
    const r = await run({ refreshAfterMs: 0 });
    expect(r.counts.events.unchanged).toBe(7);
    expect(env.sandbox.stats().writes).toBe(0);
    await done();
  });

  it('updates exactly the edited VEVENT and retires exactly the removed one', async () => {
    await run();
    const edited = [...BASE];
    edited[2] = vevent('c@test', 'Gamma (moved to 11:00)', '20250312T110000');
    edited.splice(3, 1); // Delta removed
    feed.set(calendar(edited));
    env.sandbox.resetStats();
    // The ledger of the source's events is read in full once, while the feed is parsed: retirement
    // works from that snapshot and the run's own writes (src/write/writer.ts `retire`).
    const spy = vi.spyOn(redis, 'hscan');
    const r = await run({ refreshAfterMs: 0 }).finally(() => {
      const fullReads = spy.mock.calls.filter(([key, cursor]) => String(key).endsWith(':rules:events') && String(cursor) === '0');
      spy.mockRestore();
      expect(fullReads).toHaveLength(1);
    });
    expect(r.counts.events).toMatchObject({ updated: 1, unchanged: 5, created: 0, retired: 1 });
    expect(r.items.find((i) => i.outcome === 'updated')?.origin?.uid).toBe('c@test');
    const dump = env.sandbox.dump('en').events as any[];
    expect(dump.find((e) => e.title.startsWith('Gamma'))?.start_date).toBe('2025-03-12 11:00:00');
    expect(dump.find((e) => e.title === 'Delta')?.status).toBe('trash');
    expect(env.sandbox.stats().writes).toBe(2);
    await done();
  });

  it('refuses to retire more than half of a source when the feed comes back empty', async () => {
    await run();
    feed.set(calendar([]));
    const r = await run({ refreshAfterMs: 0 });
    expect(r.retire).toMatchObject({ refused: true, retired: 0, candidates: 7 });
    expect(r.retire?.reason).toMatch(/refusing to retire 7 of 7/);
    expect((env.sandbox.dump('en').events as any[]).filter((e) => e.status === 'trash')).toHaveLength(0);
    // Forced, it goes through.
    const forced = await run({ refreshAfterMs: 0, forceRetire: true });
    expect(forced.retire).toMatchObject({ refused: false, retired: 7 });
    await done();
  });

  it('leaves events edited on the site alone with --on-edit preserve, and reports them', async () => {
    await run();
    const alpha = (env.sandbox.dump('en').events as any[]).find((e) => e.title === 'Alpha');
    await new Promise((r) => setTimeout(r, 1100)); // modified_utc has one-second resolution
    await env.client.events.update(alpha.id, { title: 'Alpha (edited on the site)', start_date: alpha.start_date, end_date: alpha.end_date, timezone: alpha.timezone });
    const changed = [...BASE];
    changed[0] = vevent('a@test', 'Alpha v2', '20250310T100000', ['LOCATION:Town Hall, 1 Main St, Springfield', 'CATEGORIES:Music,Outdoor', 'ORGANIZER;CN=Arts Council:mailto:arts@example.org']);
    feed.set(calendar(changed));
    const r = await run({ refreshAfterMs: 0, onEdit: 'preserve' });
    const item = r.items.find((i) => i.origin?.uid === 'a@test');
    expect(item?.outcome).toBe('skipped');
    expect(item?.reason).toMatch(/edited on the site/);
    expect((env.sandbox.dump('en').events as any[]).find((e) => e.id === alpha.id)?.title).toBe('Alpha (edited on the site)');
    await done();
  });

  it('does not re-create an event that was deleted (trashed) on the site', async () => {
    await run();
    const beta = (env.sandbox.dump('en').events as any[]).find((e) => e.title === 'Beta');
    await env.client.events.delete(beta.id);
    const changed = [...BASE];
    changed[1] = vevent('b@test', 'Beta renamed', '20250311T100000');
    feed.set(calendar(changed));
    const r = await run({ refreshAfterMs: 0 });
    const item = r.items.find((i) => i.origin?.uid === 'b@test');
    expect(item).toMatchObject({ outcome: 'skipped' });
    expect(item?.reason).toMatch(/deleted on the site/);
    expect((env.sandbox.dump('en').events as any[]).filter((e) => e.title.startsWith('Beta'))).toHaveLength(1);
    await done();
  });

  it('creates no duplicates when the ledger is lost (fresh Redis state)', async () => {
    await run();
    prefix = testPrefix(); // a brand-new, empty ledger
    const r = await run({ refreshAfterMs: 0 });
    expect(r.counts.events.created).toBe(0);
    expect(r.counts.events.updated).toBe(7);
    expect(env.sandbox.dump('en').events).toHaveLength(7);
    await done();
  });

  it('writes nothing on a dry run but says what it would do', async () => {
    const r = await run({ dryRun: true });
    expect(r.counts.events.created).toBe(7);
    expect(r.items.every((i) => i.kind !== 'events' || /dry run/.test(i.reason ?? ''))).toBe(true);
    expect(env.sandbox.stats().writes).toBe(0);
    expect(env.sandbox.dump('en').events).toHaveLength(0);
    await done();
  });

  it('retires a cancelled occurrence and reports it as skipped', async () => {
    await run();
    const cancelled = [...BASE, ['BEGIN:VEVENT', 'UID:w@test', 'RECURRENCE-ID;TZID=Europe/Berlin:20250317T180000', 'DTSTART;TZID=Europe/Berlin:20250317T180000', 'DURATION:PT1H', 'SUMMARY:Weekly', 'STATUS:CANCELLED', 'END:VEVENT'].join('\r\n')];
    feed.set(calendar(cancelled));
    const r = await run({ refreshAfterMs: 0 });
    const item = r.items.find((i) => i.outcome === 'skipped' && i.origin?.uid === 'w@test');
    expect(item?.reason).toMatch(/cancelled/);
    expect(r.counts.events.retired).toBe(1);
    expect(counted(r)).toBe(r.counts.events.read);
    await done();
  });

  it('fails the run as a whole, naming the address, when the feed is on a private network', async () => {
    const err = await run({ location: 'http://10.20.30.40/feed.ics', allow: [] }).catch((e) => e);
    expect(err).toBeInstanceOf(RunFailedError);
    expect(err.message).toMatch(/10\.20\.30\.40/);
    await done();
  });

  it('refuses a feed whose UIDs all changed since the last run instead of duplicating it', async () => {
    const many = Array.from({ length: 8 }, (_, i) => vevent(`u${i}@v1`, `E${i}`, `202503${String(10 + i)}T100000`));
    feed.set(calendar(many));
    await run();
    feed.set(calendar(Array.from({ length: 8 }, (_, i) => vevent(`u${i}@v2-${Date.now()}`, `E${i}`, `202503${String(10 + i)}T100000`))));
    const err = await run({ refreshAfterMs: 0 }).catch((e) => e);
    expect(err).toBeInstanceOf(RunFailedError);
    expect(err.code).toBe('uid-churn');
    expect(env.sandbox.dump('en').events).toHaveLength(8);
    await done();
  });

  it('an end before the start is a failed item with a reason, never sent', async () => {
    feed.set(calendar([...BASE, ['BEGIN:VEVENT', 'UID:bad@test', 'DTSTART:20250320T100000Z', 'DTEND:20250320T090000Z', 'SUMMARY:Backwards', 'END:VEVENT'].join('\r\n')]));
    const r = await run();
    const bad = r.items.find((i) => i.origin?.uid === 'bad@test');
    expect(bad?.outcome).toBe('failed');
    expect(bad?.reason).toMatch(/end/i);
    expect((env.sandbox.dump('en').events as any[]).some((e) => e.title === 'Backwards')).toBe(false);
    await done();
  });
});
