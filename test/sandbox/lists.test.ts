import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSite, type TestSite } from './helpers.ts';

// The clock is 2026-11-22 01:44:40 UTC, so the default window is 2026-11-21 00:00:00 → 2028-11-22 23:59:59.
let site: TestSite;
const ids: Record<string, number> = {};

beforeAll(async () => {
  site = await openSite();
  const make = async (key: string, start: string, end: string, extra: Record<string, unknown> = {}): Promise<void> => {
    ids[key] = (await site.event({ title: `Ev ${key}`, start_date: start, end_date: end, ...extra })).id;
  };
  await make('twoDaysAgo', '2026-11-20 10:00:00', '2026-11-20 11:00:00');
  await make('yesterday', '2026-11-21 10:00:00', '2026-11-21 11:00:00');
  await make('ongoing', '2027-03-09 10:00:00', '2027-03-11 10:00:00');
  await make('mar10late', '2027-03-10 20:00:00', '2027-03-10 21:00:00', { categories: ['Music'], tags: ['jazz'], featured: true });
  await make('mar10', '2027-03-10 10:00:00', '2027-03-10 11:00:00', { categories: ['Theatre'], tags: ['rock'], description: 'a quiet evening' });
  await make('mar12', '2027-03-12 10:00:00', '2027-03-12 11:00:00', { venue: { venue: 'Filter Hall' } });
  await make('hidden', '2027-03-10 12:00:00', '2027-03-10 13:00:00', { hide_from_listings: true });
  await make('draft', '2027-03-10 13:00:00', '2027-03-10 14:00:00', { status: 'draft' });
  await make('farFuture', '2030-01-01 10:00:00', '2030-01-01 11:00:00');
  for (let i = 0; i < 12; i++) await make(`bulk${i}`, `2027-06-${String(i + 1).padStart(2, '0')} 09:00:00`, `2027-06-${String(i + 1).padStart(2, '0')} 10:00:00`);
});
afterAll(async () => {
  await site.sb.close();
});

const titles = (r: { body: any }): string[] => r.body.events.map((e: any) => e.title.replace('Ev ', ''));

describe('envelope and paging', () => {
  it('sends X-TEC totals and leaves next/previous out when there is no such page', async () => {
    const r = await site.call('GET', '/events?start_date=2027-03-01&end_date=2027-03-31', { auth: false });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['events', 'rest_url', 'total', 'total_pages']);
    expect(r.headers['x-tec-total']).toBe(String(r.body.total));
    expect(r.headers['x-tec-totalpages']).toBe('1');
    expect(r.body.rest_url).toBe(`${site.base}/events/?page=1&per_page=10&start_date=2027-03-01 00:00:00&end_date=2027-03-31 23:59:59&status=publish`);
  });

  it('orders by start and pages with next/previous links', async () => {
    const p1 = await site.call('GET', '/events?per_page=2&start_date=2027-01-01&end_date=2027-12-31', { auth: false });
    expect(titles(p1)).toEqual(['ongoing', 'mar10']);
    expect(p1.body.next_rest_url).toMatch(/\?page=2&per_page=2/);
    expect(p1.body).not.toHaveProperty('previous_rest_url');
    const p2 = await site.call('GET', '/events?per_page=2&page=2&start_date=2027-01-01&end_date=2027-12-31', { auth: false });
    expect(titles(p2)).toEqual(['mar10late', 'mar12']);
    expect(p2.body.previous_rest_url).not.toMatch(/[?&]page=/);
    expect(p2.headers['x-tec-totalpages']).toBe(String(Math.ceil(p2.body.total / 2)));
  });

  it('clamps per_page at 50 and refuses 0, -1, abc and page=0', async () => {
    const big = await site.call('GET', '/events?per_page=1000&start_date=2000-01-01&end_date=2100-01-01');
    expect(big.status).toBe(200);
    expect(big.body.rest_url).toContain('per_page=50');
    for (const bad of ['per_page=0', 'per_page=-1', 'per_page=abc', 'page=0']) {
      const r = await site.call('GET', `/events?${bad}`);
      expect(r.status, bad).toBe(400);
      expect(r.body.code).toBe('rest_invalid_param');
      expect(Object.keys(r.body.data.params)).toEqual([bad.split('=')[0]]);
    }
    const past = await site.call('GET', '/events?page=99');
    expect(past.status).toBe(404);
    expect(past.body).toEqual({ code: 'event-archive-page-not-found', message: 'The requested event archive page does not exist', data: { status: 404 } });
  });

  it('uses the default page size of the site', async () => {
    const r = await site.call('GET', '/events?start_date=2000-01-01&end_date=2100-01-01', { auth: false });
    expect(r.body.events).toHaveLength(10);
  });
});

describe('date windows', () => {
  it('defaults to yesterday 00:00 → now + 2 years', async () => {
    const r = await site.call('GET', '/events?per_page=50', { auth: false });
    const got = titles(r);
    expect(got).toContain('yesterday');
    expect(got).not.toContain('twoDaysAgo');
    expect(got).not.toContain('farFuture');
    expect(r.body.rest_url).toContain('start_date=2026-11-21 00:00:00&end_date=2028-11-22 23:59:59');
  });

  it('reads start_date as "starts on/after" and end_date as "ends on/before", in whole days', async () => {
    const r = await site.call('GET', '/events?start_date=2027-03-10 15:00:00&end_date=2027-03-10', { auth: false });
    expect(titles(r)).toEqual(['mar10', 'mar10late']); // not the ongoing one, nor the hidden one
    const strict = await site.call('GET', '/events?start_date=2027-03-10 15:00:00&end_date=2027-03-10 23:00:00&strict_dates=true', { auth: false });
    expect(titles(strict)).toEqual(['mar10late']);
  });

  it('treats starts_*/ends_* as end-of-day bounds that replace the default window', async () => {
    const after = await site.call('GET', '/events?starts_after=2027-03-10&starts_before=2027-03-13', { auth: false });
    expect(titles(after)).toEqual(['mar12']);
    const before = await site.call('GET', '/events?starts_before=2027-03-10&ends_after=2026-01-01&per_page=50', { auth: false });
    expect(titles(before)).toEqual(['twoDaysAgo', 'yesterday', 'ongoing', 'mar10', 'mar10late']);
    const ends = await site.call('GET', '/events?ends_after=2027-03-10&ends_before=2027-03-11', { auth: false });
    expect(titles(ends)).toEqual(['ongoing']);
  });

  it('ignores every date filter with include', async () => {
    const r = await site.call('GET', `/events?include=${ids.farFuture},${ids.twoDaysAgo}&start_date=2027-01-01&end_date=2027-01-02`, { auth: false });
    expect(titles(r)).toEqual(['twoDaysAgo', 'farFuture']);
  });

  it('refuses an unparseable date', async () => {
    const r = await site.call('GET', '/events?start_date=not-a-date');
    expect([r.status, r.body.data.params]).toEqual([400, { start_date: 'Invalid parameter.' }]);
  });
});

describe('filters and visibility', () => {
  it('never lists hide_from_listings events, which stay readable by id', async () => {
    const r = await site.call('GET', `/events?include=${ids.hidden}`);
    expect(r.body.total).toBe(0);
    expect((await site.call('GET', `/events/${ids.hidden}`, { auth: false })).status).toBe(200);
  });

  it('shows drafts only to credentials and refuses status=draft anonymously', async () => {
    const q = '/events?start_date=2027-03-10&end_date=2027-03-10';
    const anon = await site.call('GET', q, { auth: false });
    const authed = await site.call('GET', q);
    expect(authed.body.total).toBe(anon.body.total + 1);
    expect(authed.body.rest_url).toContain('status=any');
    const bad = await site.call('GET', '/events?status=draft', { auth: false });
    expect([bad.status, bad.body.data.params]).toEqual([400, { status: 'Invalid parameter.' }]);
    const drafts = await site.call('GET', '/events?status=draft');
    expect(titles(drafts)).toEqual(['draft']);
    expect((await site.call('GET', '/events?status=any')).status).toBe(400);
  });

  it('searches title and description', async () => {
    expect(titles(await site.call('GET', '/events?search=quiet%20EVENING', { auth: false }))).toEqual(['mar10']);
  });

  it('filters categories and tags by slug or id, OR over all of them, and refuses unknown ones', async () => {
    const cats = await site.call('GET', '/categories');
    const music = cats.body.categories.find((c: any) => c.slug === 'music');
    const both = await site.call('GET', `/events?categories=${music.id},theatre`, { auth: false });
    expect(titles(both)).toEqual(['mar10', 'mar10late']);
    const tags = await site.call('GET', '/events?tags=rock,jazz', { auth: false });
    expect(titles(tags)).toEqual(['mar10', 'mar10late']);
    const unknown = await site.call('GET', '/events?categories=no-such-cat', { auth: false });
    expect([unknown.status, unknown.body.data.params]).toEqual([400, { categories: 'Invalid parameter.' }]);
  });

  it('filters by featured, venue and organizer', async () => {
    expect(titles(await site.call('GET', '/events?featured=true&start_date=2027-01-01', { auth: false }))).toEqual(['mar10late']);
    const venue = (await site.call('GET', `/events/${ids.mar12}`)).body.venue.id;
    expect(titles(await site.call('GET', `/events?venue=${venue}`, { auth: false }))).toEqual(['mar12']);
    expect((await site.call('GET', '/events?venue=999999')).status).toBe(400);
    expect((await site.call('GET', '/events?ticketed=true')).body.data.details.ticketed.code).toBe('event-tickets-not-active');
  });
});
