import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runIcsImport, type IcsImportParams } from '../../src/runs/import-ics.ts';
import { feedServer, testSite } from '../support/site.ts';
import { testPrefix, testRedis } from '../support/redis.ts';

/**
 * Found on a real TEC site with `--on-edit preserve --retire trash`: two events edited by hand on
 * the site (a room added to the title), then one dropped from the feed and one marked
 * STATUS:CANCELLED. The run trashed both edits. README: "With --on-edit preserve, an event edited
 * on the site since calsync wrote it is left alone and reported" — retiring it is not leaving it alone.
 */

const vevent = (uid: string, title: string, day: number, extra: string[] = []) => [
  'BEGIN:VEVENT', `UID:${uid}`, 'DTSTAMP:20270101T000000Z', `DTSTART:202703${String(day).padStart(2, '0')}T180000Z`, 'DURATION:PT1H', `SUMMARY:${title}`, ...extra, 'END:VEVENT',
];
const UIDS = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
const calendar = (pick: (uid: string, i: number) => string[] | undefined) =>
  ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//calsync test//EN', ...UIDS.flatMap((u, i) => pick(u, i) ?? []), 'END:VCALENDAR', ''].join('\r\n');
const ALL = calendar((u, i) => vevent(`${u}@test`, `Event ${u}`, i + 1));
/** a: dropped (edited on the site), b: cancelled (edited on the site), c: dropped (not edited). */
const CHANGED = calendar((u, i) => (u === 'a' || u === 'c' ? undefined : vevent(`${u}@test`, `Event ${u}`, i + 1, u === 'b' ? ['STATUS:CANCELLED'] : [])));

interface SiteEvent { id: number; title: string; status: string; start_date: string; end_date: string; timezone: string }

describe('regression: --on-edit preserve still retired events edited on the site', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  let feed: Awaited<ReturnType<typeof feedServer>>;
  let redis: Redis;
  beforeAll(async () => {
    redis = testRedis();
    feed = await feedServer(ALL);
    env = await testSite();
  });
  afterAll(async () => {
    redis.disconnect();
    await feed.close();
    await env.close();
  });
  const ctx = { prefix: testPrefix() };
  const params = (over: Partial<IcsImportParams> = {}): IcsImportParams => ({
    location: feed.url, site: env.site, sourceKey: 'rooms', lang: 'en', window: { from: new Date('2027-01-01T00:00:00Z'), to: new Date('2027-12-31T00:00:00Z') },
    retire: 'trash', onEdit: 'preserve', status: 'publish', createTerms: true, categoriesAs: 'categories', dryRun: false,
    allow: [new URL(feed.url).host], refreshAfterMs: 0, defaultTimezone: 'UTC', ...over,
  });
  const run = (over: Partial<IcsImportParams> = {}) => runIcsImport(params(over), { redis, ...ctx });
  const events = () => env.sandbox.dump('en').events as SiteEvent[];
  const byTitle = (prefix: string) => events().find((e) => e.title.startsWith(prefix))!;

  it('leaves the edited events on the site, says so, and still retires the unedited one', async () => {
    expect((await run()).counts.events.created).toBe(8);
    await new Promise((r) => setTimeout(r, 1100)); // modified_utc has whole seconds
    for (const t of ['Event a', 'Event b']) {
      const e = byTitle(t);
      await env.client.events.update(e.id, { title: `${t} (room 2)`, start_date: e.start_date, end_date: e.end_date, timezone: e.timezone });
    }
    feed.set(CHANGED);
    const r = await run();
    expect(byTitle('Event a')).toMatchObject({ title: 'Event a (room 2)', status: 'publish' });
    expect(byTitle('Event b')).toMatchObject({ title: 'Event b (room 2)', status: 'publish' });
    expect(byTitle('Event c').status).toBe('trash');
    expect(r.warnings.join('\n')).toMatch(/rooms-\w+ \(site id \d+\) was edited on the site .* not retired \(--on-edit preserve\)/);
    expect(r.warnings.filter((w) => /not retired \(--on-edit preserve\)/.test(w))).toHaveLength(2);
    expect(r.retire).toMatchObject({ retired: 1, failed: 0 });
  });

  it('with --on-edit overwrite the feed wins: the edited events are retired', async () => {
    const r = await run({ onEdit: 'overwrite' });
    expect(byTitle('Event a').status).toBe('trash');
    expect(byTitle('Event b').status).toBe('trash');
    expect(r.retire).toMatchObject({ retired: 2 });
  });
});
