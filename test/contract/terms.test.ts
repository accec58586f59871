import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, NotFoundError, type CalendarClient } from '../../src/api/index.ts';
import { caught, openTarget, useTarget, type Target } from './harness.ts';

for (const kind of ['categories', 'tags'] as const) {
  describe(kind, () => {
    let t: Target;
    let c: CalendarClient;
    beforeAll(async () => {
      t = await openTarget();
      c = t.client();
    });
    afterAll(() => t.close());

    it('create, get, update, findBySlug, findByName, delete', async () => {
      const res = c[kind];
      const slug = `${t.prefix}-term`;
      const term = await res.create({ name: `${t.prefix} Term`, description: 'd', slug });
      t.track(kind, term.id);
      expect(term).toMatchObject({ name: `${t.prefix} Term`, slug, description: 'd' });
      expect((await res.get(term.id)).slug).toBe(slug);
      expect((await res.update(term.id, { description: 'e' })).description).toBe('e');
      expect((await res.findBySlug(slug))?.id).toBe(term.id);
      expect((await res.findByName(`${t.prefix} term`))?.id).toBe(term.id);
      expect(await res.findBySlug(`${t.prefix}-none`)).toBeNull();
      expect((await res.delete(term.id)).id).toBe(term.id);
      // Terms are deleted for good: the id is then unknown.
      expect(await caught(() => res.get(term.id))).toBeInstanceOf(NotFoundError);
    });

    it('a duplicate name is ApiError 400 term_exists with data.term_id', async () => {
      const res = c[kind];
      const term = await res.create({ name: `${t.prefix} Dup` });
      t.track(kind, term.id);
      const err = await caught(() => res.create({ name: `${t.prefix} Dup` }));
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).code).toBe('term_exists');
      expect(((err as ApiError).data as { term_id?: number }).term_id).toBe(term.id);
    });

    it('lists empty terms only with hide_empty=false; iterate walks the pages', async () => {
      const res = c[kind];
      const ids: number[] = [];
      for (let i = 0; i < 3; i++) {
        const term = await res.create({ name: `${t.prefix}lst ${i}`, slug: `${t.prefix}-lst-${i}` });
        t.track(kind, term.id);
        ids.push(term.id);
      }
      const hidden = await res.list({ search: `${t.prefix}lst` });
      expect(hidden.items).toEqual([]);
      const page = await res.list({ search: `${t.prefix}lst`, hide_empty: false, per_page: 2 });
      expect(page.total).toBe(3);
      expect(page.totalPages).toBe(2);
      const seen: number[] = [];
      for await (const term of res.iterate({ search: `${t.prefix}lst`, hide_empty: false, per_page: 1 }, { concurrency: 2 })) seen.push(term.id);
      expect(seen.sort()).toEqual([...ids].sort());
      // Past the end is an empty 200 page for terms.
      expect((await res.list({ search: `${t.prefix}lst`, hide_empty: false, per_page: 2, page: 9 })).items).toEqual([]);
    });

    it('an unknown id is NotFoundError', async () => {
      expect(await caught(() => c[kind].get(987654321))).toBeInstanceOf(NotFoundError);
      expect(await caught(() => c[kind].update(987654321, { description: 'x' }))).toBeInstanceOf(NotFoundError);
      expect(await caught(() => c[kind].delete(987654321))).toBeInstanceOf(NotFoundError);
    });
  });
}

describe('terms on events', () => {
  let t: Target;
  let c: CalendarClient;
  useTarget((target) => {
    t = target;
    c = target.client();
  });

  it('events carry embedded term records and filter by term id', async () => {
    const cat = await c.categories.create({ name: `${t.prefix} Cat`, slug: `${t.prefix}-cat` });
    t.track('categories', cat.id);
    const parent = await c.categories.create({ name: `${t.prefix} Child`, parent: cat.id });
    t.track('categories', parent.id);
    expect(parent.parent).toBe(cat.id);
    const tag = await c.tags.create({ name: `${t.prefix} Tag` });
    t.track('tags', tag.id);
    const ev = await c.events.create({
      title: `${t.prefix} termed`,
      start_date: '2031-02-01 10:00:00',
      end_date: '2031-02-01 12:00:00',
      categories: [cat.id],
      tags: [tag.id],
    });
    t.track('events', ev.id);
    expect(ev.categories.map((x) => x.id)).toEqual([cat.id]);
    expect(ev.tags.map((x) => x.slug)).toEqual([tag.slug]);
    const page = await c.events.list({ start_date: '2031-02-01', end_date: '2031-02-02', categories: [cat.id] });
    expect(page.items.map((e) => e.id)).toEqual([ev.id]);
    const bySlug = await c.events.list({ start_date: '2031-02-01', end_date: '2031-02-02', categories: [cat.slug] });
    expect(bySlug.items.map((e) => e.id)).toEqual([ev.id]);
    // A non-empty term now shows in the default (hide_empty) list.
    expect((await c.categories.list({ slug: cat.slug })).items.map((x) => x.id)).toEqual([cat.id]);
    expect((await c.categories.list({ post: ev.id, hide_empty: false })).items.map((x) => x.id)).toEqual([cat.id]);
  });
});
