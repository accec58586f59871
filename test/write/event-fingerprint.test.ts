import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../src/model/fingerprint.ts';
import { slugFor } from '../../src/model/identity.ts';
import { normalizeIcs } from '../../src/sources/ics/index.ts';
import { eventBody, eventFingerprint, eventShape, linkKey, linkKeyOf, type EventBody, type EventLinkIds } from '../../src/write/body.ts';
import { corpusBytes, corpusFiles } from '../ics/helpers.ts';
import { generateIcsFeed } from '../support/generate-ics.ts';

/**
 * eventFingerprint writes an event body's sorted JSON by hand; the ledgers hold fingerprint({ ...body, slug })
 * (src/model/fingerprint.ts), so the two must agree byte for byte on every body, or every event of
 * every feed would be written again on its next import.
 */
const LINKS: EventLinkIds[] = [
  { categories: [], tags: [], organizers: [] },
  { categories: [7, 3], tags: [11], venue: 42, organizers: [5, 9] },
  { categories: [1], tags: [2, 2], venue: 0, organizers: [9, 5, 9] },
];

/** Two years: every corpus file has events there, without the 70k occurrences some series make over a century. */
const WINDOW = { from: new Date('2023-01-01T00:00:00Z'), to: new Date('2025-01-01T00:00:00Z') };

function bodiesOf(bytes: Uint8Array, name: string): Array<[EventBody, string]> {
  const { items } = normalizeIcs(bytes, { sourceKey: 'fp', sourceName: name, window: WINDOW });
  const out: Array<[EventBody, string]> = [];
  items.forEach((it, i) => {
    if (!it.ok) return;
    for (const status of [undefined, 'draft']) out.push([eventBody(it.draft, LINKS[i % LINKS.length]!, { status }), slugFor('fp', it.draft.identity)]);
  });
  return out;
}

describe('eventFingerprint', () => {
  it('equals fingerprint({ ...body, slug }) for every event of the ICS corpus and a generated feed', () => {
    const generated = new TextEncoder().encode(generateIcsFeed({ events: 400, seed: 3, recurringShare: 0.2, start: new Date(Date.UTC(2025, 0, 6)) }));
    const bodies = [...corpusFiles().flatMap((f) => bodiesOf(corpusBytes(f), f)), ...bodiesOf(generated, 'generated.ics')];
    expect(bodies.length).toBeGreaterThan(1000);
    const differing = bodies.filter(([b, slug]) => eventFingerprint(b, slug) !== fingerprint({ ...b, slug }));
    expect(differing).toEqual([]);
  });

  it('eventShape and linkKey tell two bodies of a draft apart exactly when their fingerprints differ (the re-import shortcut, src/write/draft-keys.ts)', () => {
    const generated = new TextEncoder().encode(generateIcsFeed({ events: 300, seed: 5, recurringShare: 0.2, start: new Date(Date.UTC(2023, 2, 6)) }));
    const { items } = normalizeIcs(generated, { sourceKey: 'fp', sourceName: 'g.ics', window: WINDOW });
    const drafts = items.flatMap((it) => (it.ok ? [it.draft] : []));
    expect(drafts.length).toBeGreaterThan(300);
    const mismatches: string[] = [];
    drafts.forEach((d, i) => {
      const slug = slugFor('fp', d.identity);
      const other = drafts[(i + 1) % drafts.length]!;
      for (const a of LINKS) {
        const body = eventBody(d, a);
        // What the ledger keeps after a write and what the plan compares it with are the same key.
        if (linkKey(body) !== linkKeyOf(a)) mismatches.push(`${d.identity}: linkKey ${linkKey(body)} vs ${linkKeyOf(a)}`);
        // The same draft with other links, and the next draft (another occurrence or event) with any.
        for (const b of LINKS) for (const e of [d, other]) {
          const sameKeys = eventShape(d, slug) === eventShape(e, slug) && linkKeyOf(a) === linkKeyOf(b);
          const sameFp = eventFingerprint(eventBody(d, a), slug) === eventFingerprint(eventBody(e, b), slug);
          if (sameKeys !== sameFp) mismatches.push(`${d.identity} / ${e.identity}: keys ${sameKeys}, fingerprints ${sameFp}`);
        }
      }
    });
    expect(mismatches).toEqual([]);
  });

  it('equals the generic fingerprint for optional fields present, absent, undefined, null, and odd text', () => {
    const base: EventBody = {
      title: 'T', status: 'publish', timezone: 'Europe/Paris', all_day: false, start_date: '2025-01-01 10:00:00', end_date: '2025-01-01 11:00:00',
      cost: '', website: '', show_map: true, show_map_link: false, hide_from_listings: false, sticky: false, featured: true, categories: [], tags: [], organizer: [],
    };
    const variants: EventBody[] = [
      base,
      { ...base, description: 'd "q" \\ \u2028 é 😀', excerpt: 'e', image: 'https://x.test/i.png', venue: 3, organizer: [2, 1] },
      { ...base, description: undefined, venue: undefined },
      { ...base, title: '\ud800 lone surrogate', cost: '€25' },
      { ...base, venue: null as unknown as number },
    ];
    for (const b of variants) expect(eventFingerprint(b, 'slug-1')).toBe(fingerprint({ ...b, slug: 'slug-1' }));
  });

  it('takes the generic way for a body with a key or value it does not write by hand', () => {
    const base = eventBody({ identity: 'x', title: 'T', timezone: 'UTC', all_day: false, start_date: '2025-01-01 10:00:00', end_date: '2025-01-01 11:00:00', categories: [], tags: [], organizers: [], origin: { source: 's' } } as never, { categories: [], tags: [], organizers: [] });
    const odd = [
      { ...base, slug: 'other' },
      { ...base, zzz: 1, aaa: 'first' },
      { ...base, categories: [{ b: 1, a: 2 }] },
      { ...base, meta: { z: 1, a: 2 } },
    ] as unknown as EventBody[];
    for (const b of odd) expect(eventFingerprint(b, 'slug-2')).toBe(fingerprint({ ...b, slug: 'slug-2' }));
  });
});
