import { describe, expect, it } from 'vitest';
import { eventVenue, type CalendarClient, type EventRecord } from '../../src/api/index.ts';
import { eventBody, useTarget, type Target } from './harness.ts';

/**
 * Trashing a venue or organizer unlinks it from the site's upcoming published events, and takes
 * every other venue or organizer link of those events with it (TEC's cleanupPostVenues /
 * cleanupPostOrganizers delete the whole meta key; src/sandbox/trash-links.ts). A trashed one can
 * be linked again by an event write, and is then shown with its `trash` status. Runs against the
 * sandbox and, with CALSYNC_CONTRACT_URL, a real site (the events lie in 2031, so they are upcoming
 * and, fewer than 10 per venue, all in the one page the site's query reads).
 */

describe('a trashed venue or organizer is unlinked from its upcoming events', () => {
  let t: Target;
  let c: CalendarClient;
  useTarget((target) => {
    t = target;
    c = target.client();
  });

  const venueOf = (ev: Pick<EventRecord, 'venue'>) => eventVenue(ev);
  const newEvent = async (title: string, day: number, extra: Record<string, unknown>) => {
    const ev = await c.events.create(eventBody(`${t.prefix} ${title}`, day, extra) as never);
    t.track('events', ev.id);
    return ev;
  };

  it('a trashed venue: its events show no venue; one written again with its id shows it, status trash', async () => {
    const v = await c.venues.create({ venue: `${t.prefix} Trash Hall` });
    t.track('venues', v.id);
    const a = await newEvent('at hall A', 3, { venue: v.id });
    const b = await newEvent('at hall B', 4, { venue: v.id });
    expect(venueOf(a)?.id).toBe(v.id);
    expect((await c.venues.delete(v.id)).status).toBe('trash');
    for (const ev of [a, b]) {
      const now = await c.events.get(ev.id);
      expect(now.venue).toEqual([]);
    }
    const relinked = await c.events.update(a.id, eventBody(`${t.prefix} at hall A`, 3, { venue: v.id }) as never);
    expect([venueOf(relinked)?.id, venueOf(relinked)?.status]).toEqual([v.id, 'trash']);
    const read = await c.events.get(a.id);
    expect([venueOf(read)?.id, venueOf(read)?.status]).toEqual([v.id, 'trash']);
    // The other event stays without one: linking again is per write.
    expect((await c.events.get(b.id)).venue).toEqual([]);
  });

  it('organizer X of {X, Y} trashed: the event shows no organizers at all', async () => {
    const x = await c.organizers.create({ organizer: `${t.prefix} Org X` });
    t.track('organizers', x.id);
    const y = await c.organizers.create({ organizer: `${t.prefix} Org Y` });
    t.track('organizers', y.id);
    const ev = await newEvent('two organizers', 5, { organizer: [x.id, y.id] });
    expect(ev.organizer.map((o) => o.id).sort()).toEqual([x.id, y.id].sort());
    await c.organizers.delete(x.id);
    expect((await c.events.get(ev.id)).organizer).toEqual([]);
    // Y itself is untouched.
    expect((await c.organizers.get(y.id)).status).toBe('publish');
  });

  it('a published event written twice with a trashed venue: the second write takes the venue out of the trash', async () => {
    const v = await c.venues.create({ venue: `${t.prefix} Back Hall` });
    t.track('venues', v.id);
    const ev = await newEvent('back', 8, { venue: v.id });
    await c.venues.delete(v.id);
    const body = eventBody(`${t.prefix} back`, 8, { venue: v.id });
    expect(venueOf(await c.events.update(ev.id, body as never))?.status).toBe('trash');
    // TEC publishes the venue the event links when the write starts (publishAssociatedTypes).
    expect(venueOf(await c.events.update(ev.id, body as never))?.status).toBe('publish');
    const back = await c.venues.get(v.id);
    expect([back.status, back.slug?.endsWith('__trashed')]).toEqual(['publish', true]);
  });

  it('an event that has ended, and a draft, keep their links (the site only looks at upcoming published events)', async () => {
    const v = await c.venues.create({ venue: `${t.prefix} Kept Hall` });
    t.track('venues', v.id);
    const past = await newEvent('ended', 6, { venue: v.id, start_date: '2020-03-02 10:00:00', end_date: '2020-03-02 11:00:00' });
    const draft = await newEvent('draft', 7, { venue: v.id, status: 'draft' });
    await c.venues.delete(v.id);
    for (const ev of [past, draft]) {
      const now = await c.events.get(ev.id);
      expect([venueOf(now)?.id, venueOf(now)?.status]).toEqual([v.id, 'trash']);
    }
  });
});
