import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runIcsImport, type IcsImportParams } from '../../src/runs/import-ics.ts';
import { feedServer, testSite } from '../support/site.ts';
import { testPrefix, testRedis } from '../support/redis.ts';

/**
 * A venue calsync created, trashed on the site: the site unlinks it from its upcoming events
 * (test/contract/linked-trash.test.ts). The next import whose feed changed those events wrote them
 * with the venue's id again (the ledger took it for unchanged, so no request showed it trashed),
 * linking the trashed venue, and the import after that took it out of the trash (TEC publishes the
 * venue a published event links when the event is written). Had its fields changed, the import
 * would have created a second one instead. README: a venue calsync created that was trashed on
 * the site stays deleted.
 */

const vevent = (uid: string, title: string, day: number, location: string, extra: string[] = []) => [
  'BEGIN:VEVENT', `UID:${uid}`, 'DTSTAMP:20270101T000000Z', `DTSTART:204003${String(day).padStart(2, '0')}T180000Z`, 'DURATION:PT1H',
  `SUMMARY:${title}`, `LOCATION:${location}`, ...extra, 'END:VEVENT',
];
const HALL = 'Trash Hall\\, 1 Main Street';
/** The same place (a venue's identity is its location text, case aside) with other fields: the venue changed. */
const HALL_CHANGED = 'Trash Hall\\, 1 MAIN STREET';
const ORG = ['ORGANIZER;CN=Org X:mailto:x@example.org'];
const calendar = (version: number, hall = HALL) => ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//calsync test//EN',
  // a and b change with each version; c never does; d is at another venue.
  ...vevent('a@test', `Talk a v${version}`, 1, hall, ORG), ...vevent('b@test', `Talk b v${version}`, 2, hall),
  ...vevent('c@test', 'Talk c', 3, HALL), ...vevent('d@test', `Talk d v${version}`, 4, 'Other Hall\\, 2 Side Street', ORG),
  'END:VCALENDAR', ''].join('\r\n');

interface SiteEvent { id: number; title: string; venue: { id: number } | []; organizer: Array<{ id: number }> }
interface SiteVenue { id: number; venue: string; status: string }

describe('regression: a venue calsync created and someone trashed was linked again (and taken out of the trash)', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  let feed: Awaited<ReturnType<typeof feedServer>>;
  let redis: Redis;
  beforeAll(async () => {
    redis = testRedis();
    feed = await feedServer(calendar(1));
    env = await testSite();
  });
  afterAll(async () => {
    redis.disconnect();
    await feed.close();
    await env.close();
  });
  const ctx = { prefix: testPrefix() };
  const params = (): IcsImportParams => ({
    location: feed.url, site: env.site, sourceKey: 'talks', lang: 'en', window: { from: new Date('2040-01-01T00:00:00Z'), to: new Date('2040-12-31T00:00:00Z') },
    retire: 'keep', onEdit: 'overwrite', status: 'publish', createTerms: true, categoriesAs: 'categories', dryRun: false,
    allow: [new URL(feed.url).host], refreshAfterMs: 0, defaultTimezone: 'UTC',
  });
  const run = () => runIcsImport(params(), { redis, ...ctx });
  const dump = () => env.sandbox.dump('en') as unknown as { events: SiteEvent[]; venues: SiteVenue[] };
  const venueId = (e: SiteEvent) => (Array.isArray(e.venue) ? undefined : e.venue.id);
  const halls = () => dump().venues.filter((v) => v.venue.startsWith('Trash Hall'));
  let hall: SiteVenue;

  it('a re-import after the venue was trashed links no event to it, creates none, and says so once', async () => {
    expect((await run()).counts.events.created).toBe(4);
    [hall] = halls();
    expect(hall).toBeDefined();
    expect(dump().events.filter((e) => venueId(e) === hall.id)).toHaveLength(3);
    await env.client.venues.delete(hall.id); // the sandbox's REST route, as on the site
    feed.set(calendar(2));
    const r = await run();
    expect(r.counts.events.updated).toBe(3); // a, b, d
    expect(dump().events.filter((e) => venueId(e) === hall.id)).toEqual([]);
    expect(halls().map((v) => [v.id, v.status])).toEqual([[hall.id, 'trash']]);
    const warned = r.warnings.filter((w) => w.includes("in the site's trash"));
    expect(warned).toHaveLength(1);
    expect(warned[0]).toContain(`venue "Trash Hall" (id ${hall.id})`);
    expect(warned[0]).toMatch(/restore it from the site's trash/);
  });

  it('the next imports keep it out: an unchanged one sends no write, a changed one does not take it out of the trash', async () => {
    env.sandbox.resetStats();
    const same = await run();
    expect(same.counts.events.updated + same.counts.events.created).toBe(0);
    expect(env.sandbox.stats().writes).toBe(0);
    // Nor a look at the venue or organizers: no event is written.
    expect(Object.keys(env.sandbox.stats().byRoute).filter((k) => /venues|organizers/.test(k))).toEqual([]);
    feed.set(calendar(3));
    const r = await run();
    expect(r.counts.events.updated).toBe(3);
    expect(halls().map((v) => [v.id, v.status])).toEqual([[hall.id, 'trash']]);
    expect(dump().events.filter((e) => venueId(e) === hall.id)).toEqual([]);
    expect(r.warnings.filter((w) => w.includes(`(id ${hall.id}) is in the site's trash`))).toHaveLength(1);
  });

  it('its fields changed in the feed: it is not created again (a second one used to be)', async () => {
    feed.set(calendar(5, HALL_CHANGED));
    const r = await run();
    expect(halls().map((v) => [v.id, v.status])).toEqual([[hall.id, 'trash']]);
    expect(dump().events.filter((e) => venueId(e) !== undefined && venueId(e) !== dump().venues.find((v) => v.venue.startsWith('Other'))?.id)).toEqual([]);
    expect(r.warnings.filter((w) => w.includes(`(id ${hall.id}) is in the site's trash`))).toHaveLength(1);
  });

  it('restored on the site, it is linked again by the next run that writes its events', async () => {
    await env.client.venues.update(hall.id, { venue: 'Trash Hall', status: 'publish' });
    feed.set(calendar(4));
    const r = await run();
    expect(r.warnings.filter((w) => w.includes("in the site's trash"))).toEqual([]);
    const linked = dump().events.filter((e) => venueId(e) === hall.id).map((e) => e.title).sort();
    expect(linked).toEqual(['Talk a v4', 'Talk b v4']);
    expect(halls()).toHaveLength(1);
  });

  it('an organizer trashed on the site: no event written links it again, and the run says so', async () => {
    const org = (dump() as unknown as { organizers: Array<{ id: number; organizer: string }> }).organizers.find((o) => o.organizer === 'Org X')!;
    await env.client.organizers.delete(org.id);
    feed.set(calendar(6));
    const r = await run();
    expect(dump().events.filter((e) => e.organizer.some((o) => o.id === org.id))).toEqual([]);
    expect((dump() as unknown as { organizers: Array<{ id: number; status: string }> }).organizers.find((o) => o.id === org.id)?.status).toBe('trash');
    expect(r.warnings.filter((w) => w.includes(`organizer "Org X" (id ${org.id}) is in the site's trash`))).toHaveLength(1);
  });
});
