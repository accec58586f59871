import { describe, expect, it } from 'vitest';
import { ApiError, eventVenue, type CalendarClient, type EventRecord } from '../../src/api/index.ts';
import { caught, eventBody, useTarget, type Target } from './harness.ts';

/**
 * Venues and organizers created inside `POST /events` (what the write path relies on to create a
 * new venue in the first event that links it, src/write/inline.ts). Each check runs against the
 * sandbox and, with CALSYNC_CONTRACT_URL, a real site, so a sandbox that drifts from the site fails.
 */

for (const version of ['6.17.2', '6.17.1'] as const) {
  describe(`inline venues and organizers (${version} sandbox, or the real site)`, () => {
    let t: Target;
    let c: CalendarClient;
    useTarget(
      (target) => {
        t = target;
        c = target.client();
      },
      { version },
    );
    let day = 0;
    /** A raw POST /events (no client-side validation), its records tracked for clean-up. */
    const post = async (title: string, extra: Record<string, unknown>): Promise<EventRecord> => {
      const e = await c.request<EventRecord>({ method: 'POST', path: '/events', body: eventBody(`${t.prefix} ${title}`, 1 + (day++ % 28), extra) });
      track(e);
      return e;
    };
    const track = (e: EventRecord) => {
      t.track('events', e.id);
      const v = eventVenue(e);
      if (v) t.track('venues', v.id);
      for (const o of e.organizer) t.track('organizers', o.id);
    };
    const slugOf = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, '-');

    it('creates them and answers with their ids; the slug comes from the name, a slug sent with them is ignored', async () => {
      const venue = `${t.prefix} Inline Hall`;
      const organizer = `${t.prefix} Inline Org`;
      const e = await post('inline one', {
        slug: `${t.prefix}-inline-one`,
        venue: { venue, address: '1 Main St', city: 'Lyon', status: 'publish', show_map: 'true', show_map_link: 'true', slug: `${t.prefix}-wanted-venue` },
        organizer: [{ organizer, email: 'org@example.org', status: 'publish', slug: `${t.prefix}-wanted-org` }],
      });
      expect(e.slug).toBe(`${t.prefix}-inline-one`);
      const v = eventVenue(e)!;
      expect(v).toMatchObject({ venue, slug: slugOf(venue), address: '1 Main St', city: 'Lyon' });
      expect(e.organizer.map((o) => [o.organizer, o.slug, o.email])).toEqual([[organizer, slugOf(organizer), 'org@example.org']]);
      expect((await c.venues.get(v.id)).slug).toBe(slugOf(venue));
      expect((await c.organizers.getBySlug(slugOf(organizer))).id).toBe(e.organizer[0]!.id);
    });

    it('the same data again is de-duplicated by the site (same ids), and an event linking the ids links the same records', async () => {
      const data = { venue: { venue: `${t.prefix} Twin Hall`, city: 'Nantes', status: 'publish' }, organizer: [{ organizer: `${t.prefix} Twin Org`, status: 'publish' }] };
      const a = await post('twin a', data);
      const b = await post('twin b', data);
      expect([eventVenue(b)!.id, b.organizer[0]!.id]).toEqual([eventVenue(a)!.id, a.organizer[0]!.id]);
      const byId = await post('twin c', { venue: eventVenue(a)!.id, organizer: [a.organizer[0]!.id, { organizer: `${t.prefix} Second Org`, status: 'publish' }] });
      expect(eventVenue(byId)!.id).toBe(eventVenue(a)!.id);
      expect(byId.organizer.map((o) => o.organizer).sort()).toEqual([`${t.prefix} Second Org`, `${t.prefix} Twin Org`]);
      const listed = await c.venues.list({ per_page: 50 });
      expect(listed.items.filter((x) => x.venue === `${t.prefix} Twin Hall`)).toHaveLength(1);
    });

    it('the site matches on the title (and the description when one is sent), not on the address: a same-named venue comes back as the first, its fields overwritten', async () => {
      const name = `${t.prefix} Same Name Hall`;
      const a = await post('same a', { venue: { venue: name, address: '1 First St', city: 'Paris', status: 'publish' } });
      const b = await post('same b', { venue: { venue: name, address: '9 Other St', status: 'publish' } });
      expect(eventVenue(b)).toMatchObject({ id: eventVenue(a)!.id, address: '9 Other St', city: 'Paris' });
      const standalone = await c.venues.create({ venue: name, address: '5 Fifth St' });
      expect(standalone).toMatchObject({ id: eventVenue(a)!.id, address: '5 Fifth St' });
      const described = await c.venues.create({ venue: name, description: 'Another place' });
      t.track('venues', described.id);
      expect(described.id).not.toBe(eventVenue(a)!.id);
      expect(described.slug).toBe(`${slugOf(name)}-2`);
      const org = `${t.prefix} Same Name Org`;
      const oa = await post('same org a', { organizer: [{ organizer: org, email: 'a@example.org' }] });
      const ob = await post('same org b', { organizer: [{ organizer: org, email: 'b@example.org', phone: '123' }] });
      expect(ob.organizer[0]).toMatchObject({ id: oa.organizer[0]!.id, email: 'b@example.org', phone: '123' });
    });

    it('a venue in the trash is not matched: a new one is created', async () => {
      const name = `${t.prefix} Trashed Hall`;
      const a = await post('trash a', { venue: { venue: name, status: 'publish' } });
      await c.venues.delete(eventVenue(a)!.id);
      const b = await post('trash b', { venue: { venue: name, status: 'publish' } });
      expect(eventVenue(b)!.id).not.toBe(eventVenue(a)!.id);
      expect(eventVenue(b)!.slug).toBe(slugOf(name));
    });

    it('a taken event slug comes back as <slug>-2 carrying the new venue, which exists once', async () => {
      const slug = `${t.prefix}-taken`;
      await post('taken a', { slug });
      const name = `${t.prefix} Taken Hall`;
      const b = await post('taken b', { slug, venue: { venue: name, status: 'publish' } });
      expect(b.slug).toBe(`${slug}-2`);
      expect(eventVenue(b)!.venue).toBe(name);
      expect((await c.venues.getBySlug(slugOf(name))).id).toBe(eventVenue(b)!.id);
    });

    it('an invalid inline field refuses the whole write before anything is created', async () => {
      const name = `${t.prefix} Bad Site Hall`;
      const err = await caught(() => post('bad website', { venue: { venue: name, website: 'not a url' } }));
      expect(err).toBeInstanceOf(ApiError);
      expect([(err as ApiError).status, (err as ApiError).code]).toEqual([400, 'rest_invalid_param']);
      expect(((err as ApiError).body as { data: { params: object } }).data.params).toHaveProperty('venue');
      expect(await c.venues.findBySlug(slugOf(name))).toBeNull();
    });
  });
}
