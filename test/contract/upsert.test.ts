import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, NotFoundError, type CalendarClient } from '../../src/api/index.ts';
import { WINDOW, caught, eventBody, isReal, openTarget, type Target, type Version } from './harness.ts';

/**
 * The three not-found forms (src/api/resources/slugged.ts upserts through them): 6.17.2 answers a by-slug
 * update of a missing slug with 404 rest-event-not-found, 6.17.1 with 200 and a serialized
 * WP_Error; reads by slug answer 400 rest_invalid_param (slug). Against a real site the version
 * is whatever it runs, so the exact form is only asserted against the sandbox.
 */
const versions: Array<Version | undefined> = isReal ? [undefined] : ['6.17.2', '6.17.1'];

describe.each(versions)('upsert by slug and not-found forms (%s)', (version) => {
  let t: Target;
  let c: CalendarClient;
  beforeAll(async () => {
    t = await openTarget({ version });
    c = t.client();
  });
  afterAll(() => t.close());

  it('updateBySlug on a missing slug is NotFoundError in the version’s own form', async () => {
    const err = await caught(() => c.events.updateBySlug(`${t.prefix}-missing`, eventBody('x')));
    expect(err).toBeInstanceOf(NotFoundError);
    const e = err as NotFoundError;
    if (version === '6.17.2') expect([e.status, e.code]).toEqual([404, 'rest-event-not-found']);
    if (version === '6.17.1') expect([e.status, e.code]).toEqual([200, 'event-not-found']);
    expect(e.message).toContain('POST /events/by-slug/:slug →');
  });

  it('getBySlug and deleteBySlug on a missing slug: 400 rest_invalid_param (slug)', async () => {
    for (const run of [() => c.events.getBySlug(`${t.prefix}-missing`), () => c.events.deleteBySlug(`${t.prefix}-missing`)]) {
      const e = (await caught(run)) as NotFoundError;
      expect(e).toBeInstanceOf(NotFoundError);
      expect([e.status, e.code, e.paramNames]).toEqual([400, 'rest_invalid_param', ['slug']]);
    }
  });

  it('an unknown event id: 404 rest-event-not-found (6.17.2) or 400 rest_invalid_param id (6.17.1)', async () => {
    for (const run of [
      () => c.events.get(987654321),
      () => c.events.update(987654321, eventBody('x')),
      () => c.events.delete(987654321),
    ]) {
      const e = (await caught(run)) as NotFoundError;
      expect(e).toBeInstanceOf(NotFoundError);
      if (version === '6.17.2') expect([e.status, e.code]).toEqual([404, 'rest-event-not-found']);
      if (version === '6.17.1') expect([e.status, e.code, e.paramNames]).toEqual([400, 'rest_invalid_param', ['id']]);
    }
  });

  it('an id of another post type is NotFoundError for events', async () => {
    const v = await c.venues.create({ venue: `${t.prefix} not an event` });
    t.track('venues', v.id);
    const e = (await caught(() => c.events.get(v.id))) as ApiError;
    expect(e).toBeInstanceOf(NotFoundError);
    expect(e.status).toBe(400);
  });

  it('upsertBySlug creates once, then updates in place', async () => {
    const slug = `${t.prefix}-ups`;
    t.sandbox?.resetStats();
    const first = await c.events.upsertBySlug(slug, eventBody(`${t.prefix} ups`, 9, { featured: true }));
    t.track('events', first.record.id);
    expect(first.created).toBe(true);
    expect(first.record.slug).toBe(slug);
    expect(first.record.featured).toBe(true);
    const second = await c.events.upsertBySlug(slug, eventBody(`${t.prefix} ups 2`, 10));
    expect(second.created).toBe(false);
    expect(second.record.id).toBe(first.record.id);
    expect(second.record.title).toBe(`${t.prefix} ups 2`);
    expect(second.record.start_date).toBe('2031-01-10 10:00:00');
    // Full body on update: what was not sent is reset, as on the live sites.
    expect(second.record.featured).toBe(false);
    if (t.sandbox) {
      const s = t.sandbox.stats();
      expect(s.byRoute['POST /events/by-slug/:slug']).toBe(2);
      expect(s.byRoute['POST /events']).toBe(1);
    }
    const listed = await c.events.list({ ...WINDOW, search: `${t.prefix} ups` });
    expect(listed.items.map((e) => e.id)).toEqual([first.record.id]);
  });

  it('upsertBySlug works the same for venues and organizers', async () => {
    const v1 = await c.venues.upsertBySlug(`${t.prefix}-v`, { venue: `${t.prefix} v`, city: 'X' });
    t.track('venues', v1.record.id);
    const v2 = await c.venues.upsertBySlug(`${t.prefix}-v`, { venue: `${t.prefix} v`, city: 'Y' });
    expect([v1.created, v2.created, v2.record.id, v2.record.city]).toEqual([true, false, v1.record.id, 'Y']);
    const o1 = await c.organizers.upsertBySlug(`${t.prefix}-o`, { organizer: `${t.prefix} o`, phone: '1' });
    t.track('organizers', o1.record.id);
    const o2 = await c.organizers.upsertBySlug(`${t.prefix}-o`, { organizer: `${t.prefix} o`, phone: '2' });
    expect([o1.created, o2.created, o2.record.id, o2.record.phone]).toEqual([true, false, o1.record.id, '2']);
  });

  it('a trashed event is not found by its slug but detected by isTrashed', async () => {
    const slug = `${t.prefix}-trash`;
    const { record } = await c.events.upsertBySlug(slug, eventBody(`${t.prefix} trash`, 11));
    t.track('events', record.id);
    await c.events.delete(record.id);
    expect(await caught(() => c.events.updateBySlug(slug, eventBody('x', 11)))).toBeInstanceOf(NotFoundError);
    expect(await c.events.isTrashed(slug)).toBe(true);
  });
});
