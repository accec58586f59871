import { describe, expect, it } from 'vitest';
import { ApiError, NotFoundError, RequestValidationError, SlugMismatchError, type CalendarClient } from '../../src/api/index.ts';
import { caught, isReal, useTarget, type Target } from './harness.ts';

describe('venues', () => {
  let t: Target;
  let c: CalendarClient;
  useTarget((target) => {
    t = target;
    c = target.client();
  });

  // The site derives venue and organizer slugs from their names (it takes no `slug` argument),
  // so every slug below is the slugified name.
  it('create, get, getBySlug, findBySlug', async () => {
    const slug = `${t.prefix}-venue`;
    const v = await c.venues.create({ venue: `${t.prefix} venue`, address: '1 Main St', city: 'Springfield', zip: '12345', show_map: 'false', slug });
    t.track('venues', v.id);
    expect(v.venue).toBe(`${t.prefix} venue`);
    expect(v.slug).toBe(slug);
    expect(v.show_map).toBe(false);
    expect((await c.venues.get(v.id)).city).toBe('Springfield');
    expect((await c.venues.getBySlug(v.slug!)).id).toBe(v.id);
    expect(await c.venues.findBySlug(`${t.prefix}-no-venue`)).toBeNull();
  });

  it('map flags are strings on the wire: a boolean is refused before sending', async () => {
    const err = await caught(() => c.venues.create({ venue: 'x', show_map: true as never }));
    expect(err).toBeInstanceOf(RequestValidationError);
  });

  it('a create whose name gives another slug throws SlugMismatchError carrying the venue', async () => {
    const err = await caught(() => c.venues.create({ venue: `${t.prefix} Other Name`, slug: `${t.prefix}-wanted` }));
    expect(err).toBeInstanceOf(SlugMismatchError);
    const e = err as SlugMismatchError;
    expect([e.expected, e.actual]).toEqual([`${t.prefix}-wanted`, `${t.prefix}-other-name`]);
    t.track('venues', (e.record as { id: number }).id);
  });

  it('identical venues are de-duplicated by the site: the existing record comes back', async () => {
    const body = { venue: `${t.prefix} venue twin`, address: '9 Twin St', city: 'Twinville' };
    const a = await c.venues.create(body);
    t.track('venues', a.id);
    const b = await c.venues.create(body);
    expect(b.id).toBe(a.id);
  });

  it('update by id and by slug (the slug goes in the body too)', async () => {
    const slug = `${t.prefix}-venue-upd`;
    const v = await c.venues.create({ venue: `${t.prefix} venue upd`, city: 'A', slug });
    t.track('venues', v.id);
    expect((await c.venues.update(v.id, { venue: `${t.prefix} venue upd`, city: 'B' })).city).toBe('B');
    const bySlug = await c.venues.updateBySlug(slug, { venue: `${t.prefix} venue upd`, city: 'C' });
    expect(bySlug.id).toBe(v.id);
    expect(bySlug.city).toBe('C');
  });

  it('upsertBySlug creates then updates', async () => {
    const slug = `${t.prefix}-venue-ups`;
    const a = await c.venues.upsertBySlug(slug, { venue: `${t.prefix} venue ups`, city: 'One' });
    t.track('venues', a.record.id);
    expect(a.created).toBe(true);
    expect(a.record.slug).toBe(slug);
    const b = await c.venues.upsertBySlug(slug, { venue: `${t.prefix} venue ups`, city: 'Two' });
    expect(b.created).toBe(false);
    expect(b.record.id).toBe(a.record.id);
    expect(b.record.city).toBe('Two');
  });

  it('list and iterate', async () => {
    for (let i = 0; i < 3; i++) t.track('venues', (await c.venues.create({ venue: `${t.prefix}lst ${i}`, city: `City ${i}` })).id);
    const page = await c.venues.list({ search: `${t.prefix}lst`, per_page: 2 });
    expect(page.items).toHaveLength(2);
    const names: string[] = [];
    for await (const v of c.venues.iterate({ search: `${t.prefix}lst`, per_page: 1 }, { concurrency: 2 })) names.push(v.venue ?? '');
    if (!isReal) {
      // Real sites report the unfiltered total for venue searches (see this folder's README.md), so paging overshoots there.
      expect(page.total).toBe(3);
      expect(names.sort()).toEqual([0, 1, 2].map((i) => `${t.prefix}lst ${i}`));
    }
  });

  it('delete, 410 on a second delete by id, not found by slug', async () => {
    const slug = `${t.prefix}-venue-del`;
    const v = await c.venues.create({ venue: `${t.prefix} venue del`, slug });
    t.track('venues', v.id);
    expect((await c.venues.delete(v.id)).status).toBe('trash');
    const again = await caught(() => c.venues.delete(v.id));
    expect((again as ApiError).status).toBe(410);
    expect((again as ApiError).code).toBe('venue-is-in-trash');
    expect(await caught(() => c.venues.deleteBySlug(v.slug!))).toBeInstanceOf(NotFoundError);
    // Trashed venues stay readable with credentials.
    expect((await c.venues.get(v.id)).status).toBe('trash');
    expect(await c.venues.isTrashed(v.slug!)).toBe(true);
  });

  it('deleteBySlug trashes', async () => {
    const slug = `${t.prefix}-venue-delslug`;
    const v = await c.venues.create({ venue: `${t.prefix} venue delslug`, slug });
    t.track('venues', v.id);
    expect((await c.venues.deleteBySlug(v.slug!)).id).toBe(v.id);
  });

  it('unknown id and slug are NotFoundError (400 rest_invalid_param)', async () => {
    const byId = await caught(() => c.venues.get(987654321));
    expect(byId).toBeInstanceOf(NotFoundError);
    expect((byId as NotFoundError).status).toBe(400);
    expect(await caught(() => c.venues.updateBySlug(`${t.prefix}-none`, { venue: 'x' }))).toBeInstanceOf(NotFoundError);
  });
});

describe('organizers', () => {
  let t: Target;
  let c: CalendarClient;
  useTarget((target) => {
    t = target;
    c = target.client();
  });

  it('create, get, getBySlug, findBySlug, update, updateBySlug', async () => {
    const slug = `${t.prefix}-org`;
    const o = await c.organizers.create({ organizer: `${t.prefix} org`, email: 'org@example.org', phone: '555', slug });
    t.track('organizers', o.id);
    expect(o.organizer).toBe(`${t.prefix} org`);
    expect((await c.organizers.get(o.id)).email).toBe('org@example.org');
    expect((await c.organizers.getBySlug(o.slug!)).id).toBe(o.id);
    expect(await c.organizers.findBySlug(`${t.prefix}-no-org`)).toBeNull();
    expect((await c.organizers.update(o.id, { organizer: `${t.prefix} org`, phone: '556' })).phone).toBe('556');
    expect((await c.organizers.updateBySlug(o.slug!, { organizer: `${t.prefix} org`, phone: '557' })).phone).toBe('557');
  });

  it('upsertBySlug creates then updates', async () => {
    const slug = `${t.prefix}-org-ups`;
    const a = await c.organizers.upsertBySlug(slug, { organizer: `${t.prefix} org ups`, email: 'a@example.org' });
    t.track('organizers', a.record.id);
    expect(a).toMatchObject({ created: true, record: { slug } });
    const b = await c.organizers.upsertBySlug(slug, { organizer: `${t.prefix} org ups`, email: 'b@example.org' });
    expect(b.created).toBe(false);
    expect(b.record.id).toBe(a.record.id);
    expect(b.record.email).toBe('b@example.org');
  });

  it('list, iterate, delete, deleteBySlug', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) {
      const o = await c.organizers.create({ organizer: `${t.prefix}lst ${i}`, slug: `${t.prefix}lst-${i}` });
      t.track('organizers', o.id);
      ids.push(o.id);
    }
    const page = await c.organizers.list({ search: `${t.prefix}lst`, per_page: 2 });
    expect(page.items.length).toBeGreaterThan(0);
    const seen: number[] = [];
    for await (const o of c.organizers.iterate({ search: `${t.prefix}lst`, per_page: 1 })) seen.push(o.id);
    if (!isReal) expect(seen.sort()).toEqual([...ids].sort());
    expect((await c.organizers.delete(ids[0]!)).status).toBe('trash');
    expect(((await caught(() => c.organizers.delete(ids[0]!))) as ApiError).code).toBe('organizer-is-in-trash');
    expect((await c.organizers.deleteBySlug(`${t.prefix}lst-1`)).id).toBe(ids[1]);
    expect(await caught(() => c.organizers.get(987654321))).toBeInstanceOf(NotFoundError);
  });
});
