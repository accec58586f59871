import { describe, expect, it } from 'vitest';
import { bytesOpen, collect, draftAt, failureAt, opts } from './helpers.ts';

/**
 * Venue, organizers, categories and tags are built once per distinct cells per file
 * (src/sources/csv/row-parts.ts). A row repeating those cells must read exactly as if its part had
 * been built for it: the same problems, in the same place in its reason, and a draft of its own.
 */
describe('parts rows repeat (row-parts.ts)', () => {
  const header = 'Event Name,Event Start Date,Event Featured,Event Venue Name,Venue Website,Event Organizer Name,Organizer Email,Event Category,Event Tags';
  const file = [
    header,
    'A,2024-05-01,,Hall,not a link,Ann,ann-at-example,Music,jazz', // 2: venue and organizer problems
    'B,2024-05-02,maybe,Hall,not a link,Ann,ann-at-example,Music,jazz', // 3: same parts, a problem of its own first
    'C,2024-05-03,,Hall,not a link,Ann,ann-at-example,Music,jazz', // 4: same as line 2
    'D,2024-05-04,,Hall,https://hall.example.org,Ann,ann@example.org,Music,jazz', // 5: same names, good details
    'E,2024-05-05,,Hall,https://hall.example.org,Ann,ann@example.org,Music,jazz', // 6: same as line 5
    'F,2024-05-06,,<b></b>,,"Bob; Cy",,"Food & Drink",', // 7: a venue name that is only markup, two organizers
    'G,2024-05-07,,<b></b>,,"Bob; Cy",,"Food & Drink",', // 8: same as line 7
  ].join('\n');
  const venueAndOrganizer = "Venue Website: 'not a link' is not a web address (http:// or https://); Organizer Email: 'ann-at-example' is not an e-mail address";

  it('replays a repeated part\'s problems onto every row repeating its cells, in field order', async () => {
    const c = await collect(bytesOpen(file), opts());
    expect(failureAt(c, 2).reason).toBe(venueAndOrganizer);
    expect(failureAt(c, 3).reason).toBe(`Event Featured: 'maybe' is not a yes/no value (yes/no, true/false, 1/0, x); ${venueAndOrganizer}`);
    expect(failureAt(c, 4).reason).toBe(venueAndOrganizer);
  });

  it('gives each row a draft of its own, equal to the first and sharing no object with it', async () => {
    const c = await collect(bytesOpen(file), opts());
    const [d, e] = [draftAt(c, 5), draftAt(c, 6)];
    expect(e.venue).toEqual(d.venue);
    expect(e.venue).toEqual({ identity: 'hall', venue: 'Hall', website: 'https://hall.example.org' });
    expect(e.organizers).toEqual([{ identity: 'ann', organizer: 'Ann', email: 'ann@example.org' }]);
    expect(e.venue).not.toBe(d.venue);
    expect(e.organizers).not.toBe(d.organizers);
    expect(e.organizers[0]).not.toBe(d.organizers[0]);
    expect(e.categories).not.toBe(d.categories);
    expect(Object.isFrozen(e.venue) || Object.isFrozen(e.organizers) || Object.isFrozen(e.categories)).toBe(false);
    e.venue!.city = 'changed'; // a consumer may change its own draft without touching another's
    expect(d.venue!.city).toBeUndefined();
  });

  it('drops a markup-only venue and keeps both organizers on every row repeating them', async () => {
    const c = await collect(bytesOpen(file), opts());
    for (const line of [7, 8]) {
      expect(draftAt(c, line).venue).toBeUndefined();
      expect(draftAt(c, line).organizers.map((o) => o.organizer)).toEqual(['Bob', 'Cy']);
      expect(draftAt(c, line).categories).toEqual([{ name: 'Food & Drink' }]);
    }
  });
});
