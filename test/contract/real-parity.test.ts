import { describe, expect, it } from 'vitest';
import { ApiError, type CalendarClient } from '../../src/api/index.ts';
import { caught, eventBody, useTarget, type Target } from './harness.ts';

/**
 * What real The Events Calendar sites refuse or filter and a kinder sandbox once let through
 * (issue 12). Each check runs against the sandbox and, with CALSYNC_CONTRACT_URL, a real site, so
 * any difference fails the suite.
 */

/** The WP_Error body of a refused argument, exactly as the site renders it. */
function invalidParam(name: string) {
  return { code: 'rest_invalid_param', message: `Invalid parameter(s): ${name}`, data: { status: 400, params: { [name]: 'Invalid parameter.' }, details: [] } };
}

async function refused(fn: () => Promise<unknown>): Promise<ApiError> {
  const err = await caught(fn);
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

const DATE_FILTERS = ['start_date', 'end_date', 'starts_before', 'starts_after', 'ends_before', 'ends_after'] as const;

describe('dates that are Unix time 0', () => {
  let c: CalendarClient;
  useTarget((target) => {
    c = target.client();
  });
  const list = (query: Record<string, string>) => c.request<{ events: unknown[] }>({ method: 'GET', path: '/events', query: { ...query, per_page: '1' } });

  it('regression: every /events date filter set to the epoch day is a 400 rest_invalid_param', async () => {
    for (const name of DATE_FILTERS) {
      for (const value of ['1970-01-01', '1970-01-01 00:00:00', '1970-01-01T00:00:00Z', '1970-01-01T01:00:00+01:00']) {
        const err = await refused(() => list({ [name]: value }));
        expect(err.body, `${name}=${value}`).toEqual(invalidParam(name));
      }
    }
  });

  it('the days around it, and any other time that day, are accepted', async () => {
    for (const name of DATE_FILTERS) {
      for (const value of ['1970-01-02', '1969-12-31', '1900-01-01', '1970-01-01 12:00:00']) {
        expect((await list({ [name]: value })).events, `${name}=${value}`).toBeInstanceOf(Array);
      }
    }
  });

  it('an event write with an epoch start_date is refused the same way', async () => {
    const body = { ...eventBody('epoch'), start_date: '1970-01-01 00:00:00', end_date: '1970-01-02 00:00:00' };
    const err = await refused(() => c.request({ method: 'POST', path: '/events', body }));
    expect(err.body).toEqual(invalidParam('start_date'));
  });
});

describe('empty text fields', () => {
  let t: Target;
  let c: CalendarClient;
  useTarget((target) => {
    t = target;
    c = target.client();
  });

  it('regression: a term create or update with description "" is a 400 (categories and tags)', async () => {
    for (const tax of ['categories', 'tags'] as const) {
      const err = await refused(() => c.request({ method: 'POST', path: `/${tax}`, body: { name: `${t.prefix} ${tax} empty`, description: '' } }));
      expect(err.body).toEqual(invalidParam('description'));
      const term = await c.request<{ id: number }>({ method: 'POST', path: `/${tax}`, body: { name: `${t.prefix} ${tax} desc`, description: 'Old text' } });
      t.track(tax, term.id);
      const upd = await refused(() => c.request({ method: 'POST', path: `/${tax}/${term.id}`, body: { name: `${t.prefix} ${tax} renamed`, description: '' }, idempotent: true }));
      expect(upd.body).toEqual(invalidParam('description'));
    }
  });

  it('a term update without description renames it and keeps the old description', async () => {
    const term = await c.request<{ id: number }>({ method: 'POST', path: '/categories', body: { name: `${t.prefix} keep`, description: 'Kept text' } });
    t.track('categories', term.id);
    const upd = await c.request<{ name: string; description: string }>({ method: 'POST', path: `/categories/${term.id}`, body: { name: `${t.prefix} kept` }, idempotent: true });
    expect([upd.name, upd.description]).toEqual([`${t.prefix} kept`, 'Kept text']);
  });

  it('an event with description "" or excerpt "" is a 400; venues and organizers take an empty description', async () => {
    for (const field of ['description', 'excerpt']) {
      const err = await refused(() => c.request({ method: 'POST', path: '/events', body: eventBody(`${t.prefix} empty ${field}`, 3, { [field]: '' }) }));
      expect(err.body).toEqual(invalidParam(field));
    }
    const v = await c.request<{ id: number }>({ method: 'POST', path: '/venues', body: { venue: `${t.prefix} empty venue text`, description: '' } });
    t.track('venues', v.id);
    const o = await c.request<{ id: number }>({ method: 'POST', path: '/organizers', body: { organizer: `${t.prefix} empty organizer text`, description: '' } });
    t.track('organizers', o.id);
  });
});

describe('has_events on venues and organizers', () => {
  let t: Target;
  let c: CalendarClient;
  useTarget((target) => {
    t = target;
    c = target.client();
  });

  async function listed(kind: 'venues' | 'organizers', hasEvents: string): Promise<Set<number>> {
    const ids = new Set<number>();
    for (let page = 1; ; page++) {
      const res = await c.request<Record<string, unknown>>({ method: 'GET', path: `/${kind}`, query: { has_events: hasEvents, per_page: '50', page: String(page) } }).catch((err) => {
        if (err instanceof ApiError && err.status === 404) return null; // past the last page
        throw err;
      });
      const items = (res?.[kind] as { id: number }[] | undefined) ?? [];
      for (const r of items) ids.add(r.id);
      if (!res || page >= Number(res.total_pages ?? 1)) return ids;
    }
  }

  it('regression: has_events=false lists only the venues and organizers without events', async () => {
    const used = await c.venues.create({ venue: `${t.prefix} used venue` });
    const idle = await c.venues.create({ venue: `${t.prefix} idle venue` });
    const org = await c.organizers.create({ organizer: `${t.prefix} used organizer` });
    const idleOrg = await c.organizers.create({ organizer: `${t.prefix} idle organizer` });
    for (const [k, id] of [['venues', used.id], ['venues', idle.id], ['organizers', org.id], ['organizers', idleOrg.id]] as const) t.track(k, id);
    const ev = await c.events.create(eventBody(`${t.prefix} linking event`, 5, { venue: used.id, organizer: [org.id] }) as never);
    t.track('events', ev.id);
    for (const [kind, withId, withoutId] of [['venues', used.id, idle.id], ['organizers', org.id, idleOrg.id]] as const) {
      for (const no of ['false', '0']) {
        const without = await listed(kind, no);
        expect([without.has(withId), without.has(withoutId)], `${kind} has_events=${no}`).toEqual([false, true]);
      }
      const withEvents = await listed(kind, 'true');
      expect([withEvents.has(withId), withEvents.has(withoutId)], `${kind} has_events=true`).toEqual([true, false]);
    }
  });
});

describe('event password argument', () => {
  let t: Target;
  let c: CalendarClient;
  useTarget((target) => {
    t = target;
    c = target.client();
  });

  it('regression: an empty ?password= on /events/<id> is a 400 rest_invalid_param, for anyone and any verb', async () => {
    const ev = await c.events.create(eventBody(`${t.prefix} pw`, 6) as never);
    t.track('events', ev.id);
    for (const client of [c, t.anonymous()]) {
      const err = await refused(() => client.request({ method: 'GET', path: `/events/${ev.id}`, query: { password: '' } }));
      expect(err.body).toEqual(invalidParam('password'));
    }
    const del = await refused(() => c.request({ method: 'DELETE', path: `/events/${ev.id}`, query: { password: '' } }));
    expect(del.body).toEqual(invalidParam('password'));
    // A password on an event that has none does not matter.
    expect((await c.request<{ id: number }>({ method: 'GET', path: `/events/${ev.id}`, query: { password: 'anything' } })).id).toBe(ev.id);
  });

  it('the event list ignores an empty password', async () => {
    const res = await c.request<{ events: unknown[] }>({ method: 'GET', path: '/events', query: { password: '', per_page: '1' } });
    expect(res.events).toBeInstanceOf(Array);
  });
});

describe('titles and texts: rendered in v1, as typed in wp/v2 context=edit', () => {
  let t: Target;
  let c: CalendarClient;
  useTarget((target) => {
    t = target;
    c = target.client();
  });
  const typed = { title: `Tom's "late" set -- A & B`, description: `He said "hi" -- it's <b>bold</b> & fine`, excerpt: `Short 'n' "sweet"` };

  it('v1 returns the texturized, entity-encoded title and text', async () => {
    const ev = await c.events.create(eventBody(`${t.prefix} ${typed.title}`, 7, { description: typed.description, excerpt: typed.excerpt }) as never);
    t.track('events', ev.id);
    expect(ev.title).toBe(`${t.prefix} Tom&#8217;s &#8220;late&#8221; set &#8212; A &#038; B`);
    expect(ev.description).toContain('He said &#8220;hi&#8221; &#8212; it&#8217;s <b>bold</b> &#038; fine');
    const v = await c.venues.create({ venue: `${t.prefix} Joe's "Bar"` });
    t.track('venues', v.id);
    expect(v.venue).toBe(`${t.prefix} Joe&#8217;s &#8220;Bar&#8221;`);
  });

  it('regression: the sync read rendered titles; /wp/v2/<type>?context=edit gives them raw, with edit rights only', async () => {
    const ev = await c.events.create(eventBody(`${t.prefix} ${typed.title}`, 8, { description: typed.description, excerpt: typed.excerpt }) as never);
    t.track('events', ev.id);
    const v = await c.venues.create({ venue: `${t.prefix} Joe's "Bar"` });
    t.track('venues', v.id);
    const o = await c.organizers.create({ organizer: `${t.prefix} Ann's "Trio"` });
    t.track('organizers', o.id);
    const wp = t.client({ namespace: 'wp/v2' });
    const raw = async (type: string, id: number) => {
      const items = await wp.request<{ id: number; title: { raw: string }; content: { raw: string }; excerpt: { raw: string } }[]>({
        method: 'GET', path: `/${type}`, query: { include: String(id), context: 'edit', status: 'any', per_page: '100', _fields: 'id,title,content,excerpt' },
      });
      expect(items.map((i) => i.id)).toEqual([id]);
      return items[0]!;
    };
    const e = await raw('tribe_events', ev.id);
    expect([e.title.raw, e.content.raw, e.excerpt.raw]).toEqual([`${t.prefix} ${typed.title}`, typed.description, typed.excerpt]);
    expect((await raw('tribe_venue', v.id)).title.raw).toBe(`${t.prefix} Joe's "Bar"`);
    expect((await raw('tribe_organizer', o.id)).title.raw).toBe(`${t.prefix} Ann's "Trio"`);
    const anon = await refused(() => t.anonymous({ namespace: 'wp/v2' }).request({ method: 'GET', path: '/tribe_events', query: { include: String(ev.id), context: 'edit' } }));
    expect([anon.status, anon.code]).toEqual([401, 'rest_forbidden_context']);
  });
});
