import { describe, expect, it } from 'vitest';
import { fingerprint, stableStringify } from '../../src/model/fingerprint.ts';
import { eventBody, type EventBody } from '../../src/write/body.ts';
import type { EventDraft } from '../../src/model/draft.ts';

/**
 * The fingerprint decides whether an event needs a write: it must change with every field of the
 * body, and stay what ledgers written by earlier versions hold (else every event is rewritten once).
 */

const draft: EventDraft = {
  identity: 'uid-1', title: 'Concert', description: '<p>Strings</p>', excerpt: 'Short', timezone: 'Europe/Berlin', all_day: false,
  start_date: '2025-06-01 10:00:00', end_date: '2025-06-01 11:00:00', image: 'https://img.example/a.png', cost: '10', website: 'https://example.org',
  categories: [], tags: [], organizers: [], cancelled: false, origin: { source: 'test' },
};
const body = () => eventBody(draft, { categories: [3, 7], tags: [11], venue: 9, organizers: [12, 5] });

/** Another value of the same type for every field of a body. */
function changed(v: unknown): unknown {
  if (typeof v === 'string') return `${v}x`;
  if (typeof v === 'boolean') return !v;
  if (typeof v === 'number') return v + 1;
  if (Array.isArray(v)) return [...v, 99];
  throw new Error(`no change defined for ${JSON.stringify(v)}`);
}

describe('fingerprint', () => {
  it('keeps the fingerprint of the implementation ledgers were written with (sha256 of sorted-key JSON)', () => {
    const value = { ...body(), slug: 'bench-abc', nested: { b: null, a: [1, { z: 'é"\n', y: undefined }] } };
    // Computed with the createHash/Object.entries implementation this one replaced.
    expect(fingerprint(value)).toBe('b6292cead0f912ab8ff4e5d45f8697d4');
  });

  it('serializes keys sorted at every level, leaving out undefined, whatever the insertion order', () => {
    expect(stableStringify({ b: 1, a: { d: [1, null], c: undefined }, u: undefined })).toBe('{"a":{"d":[1,null]},"b":1}');
    expect(fingerprint({ a: 1, b: [2] })).toBe(fingerprint({ b: [2], a: 1 }));
  });

  it('detects a change of any single field of an event body, and of the slug', () => {
    const base = body();
    const fp = fingerprint({ ...base, slug: 's' });
    const keys = Object.keys(base) as (keyof EventBody)[];
    expect(keys.length).toBeGreaterThanOrEqual(19);
    for (const k of keys) {
      const other = { ...base, [k]: changed(base[k]), slug: 's' };
      expect(fingerprint(other), `field ${k}`).not.toBe(fp);
    }
    expect(fingerprint({ ...base, slug: 't' })).not.toBe(fp);
  });

  it('detects an optional field appearing or going away, and a reordered organizer list', () => {
    const base = body();
    const fp = fingerprint(base);
    for (const k of ['description', 'excerpt', 'image', 'venue'] as const) {
      const { [k]: _, ...without } = base;
      expect(fingerprint(without), `without ${k}`).not.toBe(fp);
    }
    expect(fingerprint({ ...base, organizer: [5, 12] })).not.toBe(fp);
  });

  it('detects a change of every draft field a body is made from', () => {
    const ids = { categories: [3], tags: [], venue: 9, organizers: [12] };
    const fp = fingerprint(eventBody(draft, ids));
    const fields = ['title', 'description', 'excerpt', 'status', 'timezone', 'all_day', 'start_date', 'end_date', 'image', 'cost', 'website', 'show_map', 'show_map_link', 'hide_from_listings', 'sticky', 'featured'] as const;
    for (const k of fields) {
      const v = draft[k] ?? (typeof eventBody(draft, ids)[k] === 'boolean' ? eventBody(draft, ids)[k] : 'publish');
      expect(fingerprint(eventBody({ ...draft, [k]: changed(v) }, ids)), `draft ${k}`).not.toBe(fp);
    }
    for (const other of [{ ...ids, categories: [4] }, { ...ids, tags: [1] }, { ...ids, venue: 10 }, { ...ids, venue: undefined }, { ...ids, organizers: [13] }]) {
      expect(fingerprint(eventBody(draft, other))).not.toBe(fp);
    }
  });
});

describe('stableStringify', () => {
  it('serializes as the pair-sorting implementation did, integer-like keys and nested arrays included', () => {
    // What the Object.entries/sort/join implementation this one replaced wrote for these values.
    expect(stableStringify({ b: [1, undefined, { y: 2, x: [null] }], a: 'é"\n', c: true })).toBe('{"a":"é\\"\\n","b":[1,null,{"x":[null],"y":2}],"c":true}');
    expect(stableStringify({ b: 1, 10: 'ten', 9: 'nine', a: { 2: 'x', '1a': 'y' } })).toBe('{"10":"ten","9":"nine","a":{"1a":"y","2":"x"},"b":1}');
    expect(stableStringify([{ z: 1, a: 2 }, 'x'])).toBe('[{"a":2,"z":1},"x"]');
    expect(stableStringify(undefined)).toBe('null');
    expect(stableStringify(JSON.parse('{"__proto__":{"b":1,"a":2},"x":1}'))).toBe('{"__proto__":{"a":2,"b":1},"x":1}');
  });
});
