import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { legacySourceKeyFrom, sourceKeyFrom } from '../../src/model/identity.ts';
import type { RunContext } from '../../src/runs/context.ts';
import { runIcsImport, type IcsImportParams } from '../../src/runs/import-ics.ts';
import { runCsvImport, type CsvImportParams } from '../../src/runs/import-csv.ts';
import { IcsImportOptions, icsParams } from '../../src/runs/options/import-ics.ts';
import { CsvImportOptions, csvParams } from '../../src/runs/options/import-csv.ts';
import { writeEventsCsv } from '../support/generate-csv.ts';
import { feedServer, testSite } from '../support/site.ts';
import { testPrefix, testRedis } from '../support/redis.ts';

/** A private Google Calendar link of a personal calendar (the calendar id is the owner's address). */
const GOOGLE = (id: string) => `https://calendar.google.com/calendar/ical/${encodeURIComponent(id)}/private-0123456789abcdef0123456789abcdef/basic.ics`;

/**
 * Found in review: the default source key (no `--source`) was the location's host and path cut at
 * 40 characters. Every Google Calendar feed starts `calendar-google-com-calendar-ical-` (34 of them),
 * so two calendars whose ids share their first 6 characters got one key: one ledger and one slug
 * space, and the second feed's run was refused by the changed-UIDs guard (or, forced, retired the
 * first feed's events). A cut key now keeps a hash of the whole location.
 */
describe('regression: two long feed URLs sharing their first 40 characters got one default source key', () => {
  it('Google calendars whose ids share a prefix get distinct keys of at most 40 characters; the same URL keeps its key', () => {
    const a = GOOGLE('john.smith@gmail.com');
    const b = GOOGLE('john.smithers@gmail.com');
    expect(legacySourceKeyFrom(a)).toBe(legacySourceKeyFrom(b)); // what earlier versions derived: one key
    expect(sourceKeyFrom(a)).not.toBe(sourceKeyFrom(b));
    expect(sourceKeyFrom(a)).toBe(sourceKeyFrom(GOOGLE('john.smith@gmail.com')));
    for (const k of [sourceKeyFrom(a), sourceKeyFrom(b)]) expect(k).toMatch(/^calendar-google-com-calendar-ical-[0-9a-f]{6}$/);
    const file = `/data/${'Annual Regional Conference Programme '.repeat(2)}2027.csv`;
    expect(sourceKeyFrom(file)).not.toBe(sourceKeyFrom(file.replace('2027', '2028')));
    expect(sourceKeyFrom(file).length).toBeLessThanOrEqual(40);
  });

  it('locations whose key is 40 characters or fewer keep exactly the key they always had', () => {
    const cases: [string, string][] = [
      ['https://example.org/feeds/city.ics', 'example-org-feeds-city'],
      ['webcal://example.org/cal', 'example-org-cal'],
      ['/tmp/My Events.csv', 'my-events'],
      ['https://example.org/events/summer-festival-2024.ics', 'example-org-events-summer-festival-2024'],
      ['https://example.org/events/summer-festival-20245.ics', 'example-org-events-summer-festival-20245'], // exactly 40
      ['https://cal.example.org/s/Ab12Cd34Ef56Gh78Ij90/feed.ics', legacySourceKeyFrom('https://cal.example.org/s/Ab12Cd34Ef56Gh78Ij90/feed.ics')],
    ];
    for (const [location, key] of cases) {
      expect(sourceKeyFrom(location), location).toBe(key);
      expect(legacySourceKeyFrom(location), location).toBe(key);
    }
    expect('example-org-events-summer-festival-20245').toHaveLength(40);
  });

  it('only a key derived from the location is settled at run start (not --source, not a config name)', () => {
    const site = 'http://127.0.0.1:9/wp-json';
    expect(icsParams(IcsImportOptions.parse({ location: GOOGLE('x@gmail.com'), site })).keyFromLocation).toBe(true);
    expect(icsParams(IcsImportOptions.parse({ location: GOOGLE('x@gmail.com'), site, source: 'team' })).keyFromLocation).toBe(false);
    expect(csvParams(CsvImportOptions.parse({ location: '/tmp/a.csv', site })).keyFromLocation).toBe(true);
    expect(csvParams(CsvImportOptions.parse({ location: '/tmp/a.csv', site, source: 'a' })).keyFromLocation).toBe(false);
  });
});

const vevent = (uid: string, day: number) => [
  'BEGIN:VEVENT', `UID:${uid}`, `SUMMARY:Talk ${uid}`, `DTSTART:202705${String(day).padStart(2, '0')}T190000Z`, `DTEND:202705${String(day).padStart(2, '0')}T200000Z`, 'END:VEVENT',
];
const calendar = (uids: string[]) => ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//calsync test//EN', ...uids.flatMap((u, i) => vevent(u, 1 + (i % 28))), 'END:VCALENDAR', ''].join('\r\n');
const uids = (tag: string) => Array.from({ length: 12 }, (_, i) => `${tag}-${i}@example.org`);

/**
 * A describe block's sandbox site, Redis connection and two feed servers (feed "one" and feed
 * "two"), fresh per block, with the import's params for a location as the CLI and a queued ad-hoc
 * import give them (`source` only when `--source` was).
 */
function twoFeeds() {
  const t = {} as { env: Awaited<ReturnType<typeof testSite>>; redis: Redis; one: Awaited<ReturnType<typeof feedServer>>; two: Awaited<ReturnType<typeof feedServer>> };
  beforeAll(async () => {
    t.env = await testSite();
    t.redis = testRedis();
    t.one = await feedServer(calendar(uids('one')));
    t.two = await feedServer(calendar(uids('two')));
  });
  afterAll(async () => {
    t.redis.disconnect();
    await Promise.all([t.one.close(), t.two.close()]);
    await t.env.close();
  });
  /** Same host (127.0.0.1: the port is not part of a key), paths sharing far more than 40 characters. */
  const urlOf = (feed: { url: string }, id: string) => feed.url.replace('/feed.ics', `/calendar/ical/team.events.calendar.${id}/public/basic.ics`);
  const params = (location: string, source?: string): IcsImportParams => ({
    location, site: t.env.site, sourceKey: source ?? sourceKeyFrom(location), keyFromLocation: source === undefined, lang: 'en',
    window: { from: new Date('2027-01-01T00:00:00Z'), to: new Date('2027-12-31T00:00:00Z') },
    retire: 'trash', onEdit: 'overwrite', status: 'publish', createTerms: true, categoriesAs: 'categories', dryRun: false,
    allow: [new URL(t.one.url).host, new URL(t.two.url).host], refreshAfterMs: 0,
  });
  return { t, urlOf, params };
}

describe('end to end: two feeds whose URLs share their first 40 characters, one site, real Redis', () => {
  const { t, urlOf, params } = twoFeeds();
  const live = () => (t.env.sandbox.dump('en').events as { status: string }[]).filter((e) => e.status === 'publish').length;

  it('both import without --source, neither refused nor retiring the other', async () => {
    const ctx: RunContext = { redis: t.redis, prefix: testPrefix() };
    const [a, b] = [urlOf(t.one, 'alpha'), urlOf(t.two, 'bravo')];
    expect(legacySourceKeyFrom(a)).toBe(legacySourceKeyFrom(b));
    const first = await runIcsImport(params(a), ctx);
    expect(first.counts.events).toMatchObject({ created: 12, failed: 0 });
    const second = await runIcsImport(params(b), ctx);
    expect(second.counts.events).toMatchObject({ created: 12, failed: 0 });
    expect(second.run.source).not.toBe(first.run.source);
    const again = await runIcsImport(params(a), ctx);
    expect(again.counts.events).toMatchObject({ created: 0, unchanged: 12, failed: 0 });
    expect(again.counts.events.retired ?? 0).toBe(0);
    expect(live()).toBe(24);
  });
});

describe('upgrade: state written under the key earlier versions derived stays in use', () => {
  const { t, urlOf, params } = twoFeeds();
  const events = () => t.env.sandbox.dump('en').events as { status: string; title: string }[];

  it('a rerun without --source updates in place, creates nothing, and keeps using that state (ledger, fetch state, group records)', async () => {
    const prefix = testPrefix();
    const ctx: RunContext = { redis: t.redis, prefix };
    const a = urlOf(t.one, 'alpha');
    const legacy = legacySourceKeyFrom(a);
    expect(sourceKeyFrom(a)).not.toBe(legacy);
    // "The old version": its default key was the legacy one; the same writer under that key.
    const old = await runIcsImport(params(a, legacy), ctx);
    expect(old.counts.events.created).toBe(12);
    const fetchKey = `${prefix}:state:fetch:${t.env.site.key}:en:${legacy}`;
    const before = JSON.parse((await t.redis.get(fetchKey))!) as { processedAt: string };

    t.one.set(calendar(uids('one')).replace('SUMMARY:Talk one-0@example.org', 'SUMMARY:Talk one-0 (moved)'));
    const told: { msg: string }[] = [];
    const upgraded = await runIcsImport(params(a), { ...ctx, log: pino({ level: 'info' }, { write: (l: string) => void told.push(JSON.parse(l) as { msg: string }) }) });
    expect(upgraded.run.source).toBe(legacy);
    expect(told.filter((l) => l.msg.startsWith('source key')).map((l) => l.msg)).toEqual([`source key "${legacy}" kept: 12 of 12 sampled items of this location are in its ledger (written by an earlier version)`]);
    expect(upgraded.counts.events).toMatchObject({ created: 0, updated: 1, unchanged: 11, failed: 0 });
    expect(events().filter((e) => e.status === 'publish')).toHaveLength(12);
    expect(events().some((e) => e.title === 'Talk one-0 (moved)')).toBe(true);
    // Its state is the legacy key's: nothing was written under the new one.
    const after = JSON.parse((await t.redis.get(fetchKey))!) as { processedAt: string };
    expect(after.processedAt > before.processedAt).toBe(true);
    expect(await t.redis.exists(`${prefix}:ledger:${t.env.site.key}:en:${sourceKeyFrom(a)}:events`, `${prefix}:state:fetch:${t.env.site.key}:en:${sourceKeyFrom(a)}`)).toBe(0);
    expect(await t.redis.exists(`${prefix}:state:groups:${t.env.site.key}:en:${legacy}`)).toBe(1);

    // The next run settles on the legacy key at once (one pass, one log line saying why).
    const lines: { msg: string }[] = [];
    const log = pino({ level: 'info' }, { write: (l: string) => void lines.push(JSON.parse(l) as { msg: string }) });
    const next = await runIcsImport(params(a), { ...ctx, log });
    expect(next.run.source).toBe(legacy);
    expect(next.counts.events).toMatchObject({ created: 0, unchanged: 12 });
    const said = lines.filter((l) => l.msg.startsWith('source key'));
    expect(said.map((l) => l.msg)).toEqual([`source key "${legacy}" kept: the state under this key earlier versions derived was written for this location`]);
  });

  it('another long URL with the same legacy key (its state the first feed\'s) takes the new key, and neither loses an event', async () => {
    const prefix = testPrefix();
    const ctx: RunContext = { redis: t.redis, prefix };
    const [a, b] = [urlOf(t.one, 'alpha'), urlOf(t.two, 'bravo')];
    const legacy = legacySourceKeyFrom(a);
    t.one.set(calendar(uids('one')));
    const startCount = events().filter((e) => e.status === 'publish').length;
    // Written by "the old version" for feed one (the second feed was refused under it then).
    await runIcsImport(params(a, legacy), { redis: t.redis, prefix });
    const bRun = await runIcsImport(params(b), ctx);
    expect(bRun.run.source).toBe(sourceKeyFrom(b));
    expect(bRun.counts.events).toMatchObject({ created: 12, failed: 0 });
    const aRun = await runIcsImport(params(a), ctx);
    expect(aRun.run.source).toBe(legacy);
    expect(aRun.counts.events).toMatchObject({ created: 0, failed: 0 });
    expect(aRun.counts.events.retired ?? 0).toBe(0);
    expect(events().filter((e) => e.status === 'publish').length).toBe(startCount + 12);
  });

  it('a CSV with a long file name, imported by the old version, is updated in place by a rerun without --source', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'calsync-cut-'));
    const file = path.join(dir, 'regional-arts-council-events-programme-2027-final.csv');
    await writeEventsCsv(file, { rows: 60, seed: 11 });
    const legacy = legacySourceKeyFrom(file);
    expect(sourceKeyFrom(file)).not.toBe(legacy);
    const ctx: RunContext = { redis: t.redis, prefix: testPrefix() };
    const csv = (source?: string): CsvImportParams => ({
      location: file, site: t.env.site, kind: 'events', sourceKey: source ?? sourceKeyFrom(file), keyFromLocation: source === undefined, lang: 'en', status: 'publish', createTerms: true, dryRun: false, chunkSize: 25, allowFiles: true,
    });
    const old = await runCsvImport(csv(legacy), ctx);
    expect(old.counts.events.created).toBeGreaterThan(40);
    const upgraded = await runCsvImport(csv(), ctx);
    expect(upgraded.run.source).toBe(legacy);
    expect(upgraded.counts.events).toMatchObject({ created: 0, failed: 0 });
  });

  it('a migration run with no item to compare (the feed is empty now) stays on the old key, as earlier versions did', async () => {
    const prefix = testPrefix();
    const ctx: RunContext = { redis: t.redis, prefix };
    const a = urlOf(t.one, 'alpha');
    const legacy = legacySourceKeyFrom(a);
    t.one.set(calendar(uids('one')));
    await runIcsImport(params(a, legacy), ctx);
    const total = events().length;
    t.one.set(calendar([]));
    const upgraded = await runIcsImport(params(a), ctx);
    expect(upgraded.run.source).toBe(legacy);
    expect(upgraded.retire?.refused).toBe(true); // the old key's guard against retiring most of a source
    expect(events()).toHaveLength(total);
    t.one.set(calendar(uids('one')));
  });

  it('without Redis (the site is the only state) the key earlier versions derived is kept', async () => {
    const a = urlOf(t.one, 'alpha');
    const r = await runIcsImport({ ...params(a), dryRun: true }, {});
    expect(r.run.source).toBe(legacySourceKeyFrom(a));
  });
});
