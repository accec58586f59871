import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventVenue } from '../../src/api/index.ts';
import { RunReport } from '../../src/report/report.ts';
import { MemoryLedger } from '../../src/write/ledger.ts';
import { SiteWriter, type PlannedWrite } from '../../src/write/writer.ts';
import { testSite } from '../support/site.ts';

/**
 * A plan another job made (a queued sync's page, stored in Redis and written by any worker) links
 * venue and organizer ids the writing job never resolved: an event write still leaves out those in
 * the site's trash (src/write/linked-trash.ts), with one look per id, and keeps the others.
 */
describe('a stored plan linking a trashed venue and organizer', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  beforeAll(async () => {
    env = await testSite();
  });
  afterAll(() => env.close());

  const plan = (slug: string, venue: number, organizer: number[]): PlannedWrite => ({
    slug,
    origin: { source: 'other-site', ref: slug },
    body: {
      title: `Talk ${slug}`, status: 'publish', timezone: 'UTC', all_day: false, start_date: '2040-05-01 10:00:00', end_date: '2040-05-01 11:00:00',
      website: '', show_map: true, show_map_link: true, hide_from_listings: false, sticky: false, featured: false, categories: [], tags: [], cost: '', venue, organizer,
    } as PlannedWrite['body'],
    fp: `fp-${slug}`,
    notes: [],
  });

  it('is written without them, leaves them in the trash, and warns once per record', async () => {
    const { client } = env;
    const hall = await client.venues.create({ venue: 'Stored Hall' });
    const gone = await client.organizers.create({ organizer: 'Gone Org' });
    const kept = await client.organizers.create({ organizer: 'Kept Org' });
    await client.venues.delete(hall.id);
    await client.organizers.delete(gone.id);
    const report = new RunReport({ id: 'r', kind: 'sync-site', source: 'other-site', site: 'here', language: 'en', dryRun: false });
    const writer = new SiteWriter({ client, ledger: new MemoryLedger(), report, sourceKey: 'other-site' });
    env.sandbox.resetStats();
    await writer.writePlanned([plan('s1', hall.id, [gone.id, kept.id]), plan('s2', hall.id, [kept.id])]);
    // One look per record, not per event.
    const looks = Object.entries(env.sandbox.stats().byRoute).filter(([k]) => /^GET .*(venues|organizers)/.test(k)).reduce((n, [, c]) => n + c, 0);
    expect(looks).toBe(3);
    for (const slug of ['s1', 's2']) {
      const ev = await client.events.getBySlug(slug);
      expect(eventVenue(ev)).toBeNull();
      expect(ev.organizer.map((o) => o.id)).toEqual([kept.id]);
    }
    expect((await client.venues.get(hall.id)).status).toBe('trash');
    expect((await client.organizers.get(gone.id)).status).toBe('trash');
    const warned = report.finish().warnings.filter((w) => w.includes("is in the site's trash"));
    expect(warned).toHaveLength(2);
    expect(warned).toEqual(expect.arrayContaining([expect.stringContaining(`venue (id ${hall.id})`), expect.stringContaining(`organizer (id ${gone.id})`)]));
  });
});
