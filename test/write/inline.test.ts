import { beforeEach, describe, expect, it } from 'vitest';
import type { EventDraft, Normalized, OrganizerDraft, VenueDraft } from '../../src/model/draft.ts';
import { SiteWriter } from '../../src/write/writer.ts';
import { MemoryLedger } from '../../src/write/ledger.ts';
import { RunReport } from '../../src/report/report.ts';
import { testSite } from '../support/site.ts';

/**
 * New venues and organizers created inside the first event write that links them
 * (src/write/inline.ts): request counts from the sandbox, and every record written once.
 */

type Env = Awaited<ReturnType<typeof testSite>>;

const hall = (name: string, city = 'Lyon'): VenueDraft => ({ identity: name, venue: name, city });
const org = (name: string): OrganizerDraft => ({ identity: name, organizer: name, email: `${name.toLowerCase().replace(/\W+/g, '')}@example.org` });

function draft(slug: string, day: number, over: Partial<EventDraft> = {}): Normalized<EventDraft> {
  const d = `2025-06-${String(day).padStart(2, '0')}`;
  return {
    ok: true,
    draft: {
      identity: slug, title: `Event ${slug}`, timezone: 'Europe/Berlin', all_day: false, start_date: `${d} 10:00:00`, end_date: `${d} 11:00:00`,
      categories: [], tags: [], organizers: [], cancelled: false, slug, origin: { source: 'test' }, ...over,
    },
  };
}

function writer(env: Env, ledger = new MemoryLedger()) {
  const report = new RunReport({ id: 'r', kind: 'import-ics', source: 'test', site: 's', language: 'en', dryRun: false });
  return { w: new SiteWriter({ client: env.client, ledger, report, sourceKey: 'test', lang: 'en', concurrency: 8 }), report, ledger };
}

type Rendered = { events: { slug: string; venue: { id: number } | [] ; organizer: { id: number }[] }[]; venues: { id: number; venue: string }[]; organizers: { id: number; organizer: string }[] };
/** The site's records, events with their linked ids. */
function dump(env: Env) {
  const d = env.sandbox.dump('en') as unknown as Rendered;
  const events = d.events.map((e) => ({ slug: e.slug, venue: Array.isArray(e.venue) ? null : e.venue.id, organizers: e.organizer.map((o) => o.id) }));
  return { events, venues: d.venues, organizers: d.organizers };
}

describe('inline venues and organizers', () => {
  let env: Env;
  beforeEach(async () => {
    env = await testSite();
    return () => env.close();
  });

  it('forty events sharing three new venues and two new organizers: one POST /events each, nothing else created, every event linked', async () => {
    const { w, report, ledger } = writer(env);
    const venues = [hall('North Hall'), hall('South Hall'), hall('East Hall')];
    const items = Array.from({ length: 40 }, (_, i) => draft(`ev-${i}`, 1 + (i % 28), { venue: venues[i % 3], organizers: i % 2 ? [org('Alpha Org'), org('Beta Org')] : [org('Beta Org')] }));
    env.sandbox.resetStats();
    await w.prime(items);
    await w.writeEvents(items);
    const s = env.sandbox.stats().byRoute;
    expect(s['POST /events']).toBe(40);
    expect(s['POST /venues']).toBeUndefined();
    expect(s['POST /organizers']).toBeUndefined();
    expect(report.counts.events).toMatchObject({ created: 40, failed: 0 });
    expect(report.counts.venues).toMatchObject({ created: 3, failed: 0 });
    expect(report.counts.organizers).toMatchObject({ created: 2, failed: 0 });
    const site = dump(env);
    expect(site.venues.map((v) => v.venue).sort()).toEqual(['East Hall', 'North Hall', 'South Hall']);
    const venueId = new Map(site.venues.map((v) => [v.venue, v.id]));
    const orgId = new Map(site.organizers.map((o) => [o.organizer, o.id]));
    for (const [i, e] of site.events.map((e) => [Number(e.slug.slice(3)), e] as const)) {
      expect(e.venue).toBe(venueId.get(venues[i % 3]!.venue));
      expect([...e.organizers].sort()).toEqual((i % 2 ? [orgId.get('Alpha Org'), orgId.get('Beta Org')] : [orgId.get('Beta Org')]).sort());
    }
    // The ledger knows them: a second run writes nothing.
    const again = writer(env, ledger);
    env.sandbox.resetStats();
    await again.w.writeEvents(items);
    expect(env.sandbox.stats().writes).toBe(0);
    expect(again.report.counts.events).toMatchObject({ unchanged: 40 });
  });

  it('two events naming the same two new organizers in opposite orders both complete (no event waits for one waiting for it)', async () => {
    const { w, report } = writer(env);
    const items = [draft('ab', 3, { organizers: [org('Org A'), org('Org B')] }), draft('ba', 4, { organizers: [org('Org B'), org('Org A')] }), draft('b', 5, { organizers: [org('Org B')] })];
    await w.prime(items);
    await w.writeEvents(items);
    expect(report.counts.events).toMatchObject({ created: 3, failed: 0 });
    expect(report.counts.organizers).toMatchObject({ created: 2 });
    expect(dump(env).organizers).toHaveLength(2);
    expect(dump(env).events.map((e) => e.organizers.length).sort()).toEqual([1, 2, 2]);
  });

  it('an event naming one new organizer twice sends it once and links one organizer', async () => {
    const { w, report } = writer(env);
    const items = [draft('twice', 8, { organizers: [org('Echo Org'), org('Echo Org')] })];
    await w.prime(items);
    await w.writeEvents(items);
    expect(report.counts.events).toMatchObject({ created: 1, failed: 0 });
    expect(dump(env).organizers).toHaveLength(1);
    expect(dump(env).events[0]!.organizers).toEqual([dump(env).organizers[0]!.id]);
  });

  it('the event carrying a new venue is refused: the venue is created on its own and the events waiting for it link it', async () => {
    const { w, report } = writer(env);
    const venue = hall('Shared Hall');
    // The first event takes the venue; the site refuses it (an image that is neither an id nor a URL).
    const items = [draft('bad', 6, { venue, image: 'not an image' }), ...Array.from({ length: 5 }, (_, i) => draft(`ok-${i}`, 7 + i, { venue }))];
    env.sandbox.resetStats();
    await w.prime(items);
    await w.writeEvents(items);
    expect(report.counts.events).toMatchObject({ created: 5, failed: 1 });
    expect(report.counts.venues).toMatchObject({ created: 1, failed: 0 });
    expect(env.sandbox.stats().byRoute['POST /venues']).toBe(1);
    const site = dump(env);
    expect(site.venues).toHaveLength(1);
    expect(site.events.map((e) => e.venue)).toEqual(Array(5).fill(site.venues[0]!.id));
  });

  it('a new venue whose only event is not a plain create (its slug is held by a draft) is created on its own before the event is upserted', async () => {
    const { w, report } = writer(env);
    await env.client.events.create({ title: 'held', slug: 'held', status: 'draft', start_date: '2025-06-20 10:00:00', end_date: '2025-06-20 11:00:00', timezone: 'Europe/Berlin' }, { lang: 'en' });
    const items = [draft('held', 20, { venue: hall('Draft Hall'), status: 'draft' })];
    env.sandbox.resetStats();
    await w.prime(items);
    await w.writeEvents(items);
    expect(report.counts.events).toMatchObject({ updated: 1, failed: 0 });
    expect(report.counts.venues).toMatchObject({ created: 1 });
    const s = env.sandbox.stats().byRoute;
    expect([s['POST /venues'], s['POST /events'], s['POST /events/by-slug/:slug']]).toEqual([1, undefined, 1]);
    expect(dump(env).events.filter((e) => e.slug === 'held').map((e) => e.venue)).toEqual([dump(env).venues[0]!.id]);
  });

  it('a dry run creates nothing and claims nothing: every venue is reported as would be created', async () => {
    const report = new RunReport({ id: 'r', kind: 'import-ics', source: 'test', site: 's', language: 'en', dryRun: true });
    const w = new SiteWriter({ client: env.client, ledger: new MemoryLedger(), report, sourceKey: 'test', lang: 'en', dryRun: true });
    const items = [draft('d1', 1, { venue: hall('Dry Hall') }), draft('d2', 2, { venue: hall('Dry Hall') })];
    await w.writeEvents(items);
    expect(report.counts.venues).toMatchObject({ created: 1 });
    expect(report.counts.events).toMatchObject({ created: 2 });
    expect(env.sandbox.stats().writes).toBe(0);
  });
});
