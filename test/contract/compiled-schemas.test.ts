import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import * as api from '../../src/api/index.ts';
import { compiled } from '../../src/util/compiled.ts';
import { WINDOW, eventBody, useTarget, type Target } from './harness.ts';

/**
 * src/api/validate.ts checks bodies and parses answers with each schema's compiled copy
 * (z.compile). These hold the copies to the schemas on the site's own answers and write bodies,
 * and on every one-field change of them (removed, or replaced by a value of another type): the
 * same verdict, the same output (key order included) and, on a refusal, the same issues.
 */

/** Values of every JSON type and the odd ones the site sends (`false` images, `[]` for objects). */
const REPLACEMENTS: unknown[] = [undefined, null, '', 'x', '2031-01-01 10:00:00', 0, 7, -1, 1.5, true, false, [], [1], ['a'], {}, { id: 3 }];

/** The value, each field removed or replaced, and an unknown key added (one level deep, arrays' first item too). */
function variants(value: Record<string, unknown>): unknown[] {
  const out: unknown[] = [value, { ...value, zz_unknown: 1 }, JSON.parse(`{"__proto__":{"x":1},${JSON.stringify(value).slice(1)}`)];
  for (const key of Object.keys(value)) {
    for (const r of REPLACEMENTS) {
      const copy: Record<string, unknown> = { ...value };
      if (r === undefined) delete copy[key];
      else copy[key] = r;
      out.push(copy);
    }
    const inner = Array.isArray(value[key]) ? (value[key] as unknown[])[0] : value[key];
    if (inner && typeof inner === 'object' && !Array.isArray(inner)) {
      for (const v of variants(inner as Record<string, unknown>).slice(1, 40)) out.push({ ...value, [key]: Array.isArray(value[key]) ? [v] : v });
    }
  }
  return out;
}

function agree(schema: z.ZodType, values: unknown[]): number {
  const copy = compiled(schema);
  expect(copy).not.toBe(schema);
  let refused = 0;
  for (const v of values) {
    const a = schema.safeParse(v);
    const b = copy.safeParse(v);
    expect(b.success, JSON.stringify(v)).toBe(a.success);
    if (a.success) expect(JSON.stringify(b.data)).toBe(JSON.stringify(a.data));
    else {
      refused++;
      expect(b.error!.issues).toEqual(a.error.issues);
    }
  }
  return refused;
}

describe('compiled schema copies agree with the schemas', () => {
  let t: Target;
  useTarget((x) => (t = x));

  it('on records the site answers with, and every one-field change of them', async () => {
    const c = t.client();
    const cat = await c.categories.create({ name: `${t.prefix} cat` });
    const tag = await c.tags.create({ name: `${t.prefix} tag` });
    const { record } = await c.events.upsertBySlug(`${t.prefix}-ev`, {
      ...eventBody(`${t.prefix} ev`, 3, { cost: '5 - 10', website: 'https://example.org/e', categories: [cat.id], tags: [tag.id] }),
      venue: { venue: `${t.prefix} hall`, address: '1 Main St', city: 'Paris' },
      organizer: [{ organizer: `${t.prefix} org`, email: 'o@example.org' }],
    });
    const raw = (path: string) => c.request<Record<string, unknown>>({ method: 'GET', path });
    const event = await raw(`/events/${record.id}`);
    const list = await c.request<Record<string, unknown>>({ method: 'GET', path: '/events', query: { ...WINDOW, per_page: 5 } });
    const venue = (event.venue as Record<string, unknown>) ?? {};
    const organizer = (event.organizer as Record<string, unknown>[])[0]!;
    const term = (event.categories as Record<string, unknown>[])[0]!;
    expect(agree(api.EventRecord, variants(event))).toBeGreaterThan(0);
    expect(agree(api.EventAck, variants(event))).toBeGreaterThan(0);
    expect(agree(api.VenueRecord, variants(venue))).toBeGreaterThan(0);
    expect(agree(api.OrganizerRecord, variants(organizer))).toBeGreaterThan(0);
    expect(agree(api.CategoryRecord, variants(term))).toBeGreaterThan(0);
    expect(agree(api.ListEnvelope, variants(list))).toBeGreaterThan(0);
  });

  it('on write bodies and list queries, and every one-field change of them', () => {
    const event = {
      ...eventBody('Concert', 4, { slug: 'concert', description: 'd', status: 'publish', all_day: false, cost: 10, website: '', show_map: true, categories: [1], tags: [], organizer: [2, { organizer: 'New org', email: 'n@example.org' }] }),
      venue: { venue: 'New hall', city: 'Lyon' },
    };
    for (const schema of [api.EventCreate, api.EventUpdate, api.EventUpdateById]) expect(agree(schema, variants(event))).toBeGreaterThan(0);
    expect(agree(api.EventCreate, variants({ ...event, venue: 5, end_date: '2031-01-04 09:00:00' }))).toBeGreaterThan(0);
    expect(agree(api.VenueCreate, variants({ venue: 'Hall', slug: 'hall', address: '1 Main St', city: 'Paris', country: 'France', zip: '75001', phone: '', website: 'https://example.org', show_map: 'true' }))).toBeGreaterThan(0);
    expect(agree(api.OrganizerCreate, variants({ organizer: 'Org', slug: 'org', email: 'o@example.org', phone: '1', website: 'https://example.org' }))).toBeGreaterThan(0);
    expect(agree(api.CategoryCreate, variants({ name: 'Jazz', slug: 'jazz', description: 'd', parent: 3 }))).toBeGreaterThan(0);
    expect(agree(api.EventListQuery, variants({ ...WINDOW, page: 2, per_page: 50, status: 'publish', search: 'x' }))).toBeGreaterThan(0);
  });
});
