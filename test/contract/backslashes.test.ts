import { describe, expect, it } from 'vitest';
import type { CalendarClient } from '../../src/api/index.ts';
import { eventBody, useTarget, type Target } from './harness.ts';

/**
 * Backslashes in text. The Events Calendar's event, venue and organizer routes store what they are
 * sent through `wp_unslash` (PHP stripslashes): `a\b` is stored as `ab`, `a\\b` as `a\b`; the
 * category and tag routes keep backslashes. Measured on real 6.17.1 and 6.17.2 sites; the sandbox
 * models it (src/sandbox/slashes.ts), and the client doubles backslashes in the bodies of the three
 * unslashing routes (src/api/wp-slash.ts), so text reaches the site as written: a Windows path, an
 * ASCII-art arrow `\o/`, a LaTeX-ish `\alpha`. Runs against the sandbox and, with
 * CALSYNC_CONTRACT_URL, a real site.
 */
const TEXT = String.raw`C:\Temp \o/ a\\b`;
const STRIPPED = String.raw`C:Temp o/ a\b`;

for (const version of ['6.17.2', '6.17.1'] as const) {
  describe(`backslashes in event, venue and organizer text (${version} sandbox, or the real site)`, () => {
    let t: Target;
    let c: CalendarClient;
    useTarget(
      (target) => {
        t = target;
        c = target.client();
      },
      { version },
    );

    it('the site unslashes event, venue and organizer text sent as is; category and tag names keep theirs', async () => {
      const raw = <T>(path: string, body: unknown) => c.request<T>({ method: 'POST', path, body });
      const ev = await raw<{ id: number; title: string; cost: string; venue: { id: number; venue: string }; organizer: { id: number; organizer: string }[] }>('/events', {
        ...eventBody(`${t.prefix} ${TEXT}`, 5),
        cost: String.raw`5\6`,
        venue: { venue: `${t.prefix} V ${TEXT}` },
        organizer: [{ organizer: `${t.prefix} O ${TEXT}` }],
      });
      t.track('events', ev.id);
      t.track('venues', ev.venue.id);
      t.track('organizers', ev.organizer[0]!.id);
      expect([ev.title, ev.cost, ev.venue.venue, ev.organizer[0]!.organizer]).toEqual([`${t.prefix} ${STRIPPED}`, '$56', `${t.prefix} V ${STRIPPED}`, `${t.prefix} O ${STRIPPED}`]);
      const cat = await raw<{ id: number; name: string }>('/categories', { name: `${t.prefix} ${TEXT}` });
      t.track('categories', cat.id);
      expect(cat.name).toBe(`${t.prefix} ${TEXT}`);
    });

    it('the client sends event, venue and organizer text so that the site stores it as written, on creates and updates', async () => {
      const slug = `${t.prefix}-bs`;
      const ev = await c.events.create({ ...eventBody(`${t.prefix} ${TEXT}`, 6), slug, description: `<p>${TEXT}</p>`, venue: { venue: `${t.prefix} V ${TEXT}`, address: TEXT }, organizer: [{ organizer: `${t.prefix} O ${TEXT}`, phone: TEXT }] } as never);
      t.track('events', ev.id);
      t.track('venues', (ev.venue as { id: number }).id);
      t.track('organizers', (ev.organizer as { id: number }[])[0]!.id);
      const venue = ev.venue as { venue: string; address: string };
      const organizer = (ev.organizer as { organizer: string; phone: string }[])[0]!;
      expect([ev.title, venue.venue, venue.address, organizer.organizer, organizer.phone]).toEqual([`${t.prefix} ${TEXT}`, `${t.prefix} V ${TEXT}`, TEXT, `${t.prefix} O ${TEXT}`, TEXT]);
      expect(ev.description).toContain(TEXT);
      const bySlug = await c.events.updateBySlug(slug, { ...eventBody(`${t.prefix} 2 ${TEXT}`, 6) });
      expect(bySlug.title).toBe(`${t.prefix} 2 ${TEXT}`);
      const byId = await c.events.update(ev.id, { ...eventBody(`${t.prefix} 3 ${TEXT}`, 6) });
      expect(byId.title).toBe(`${t.prefix} 3 ${TEXT}`);
      const v = await c.venues.create({ venue: `${t.prefix} V2 ${TEXT}`, city: TEXT } as never);
      t.track('venues', v.id);
      expect([v.venue, v.city]).toEqual([`${t.prefix} V2 ${TEXT}`, TEXT]);
    });
  });
}
