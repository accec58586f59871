import { describe, expect, it } from 'vitest';
import { ApiError, type CalendarClient } from '../../src/api/index.ts';
import { caught, eventBody, useTarget, type Target } from './harness.ts';

/**
 * WordPress core's `/wp/v2/tribe_events` list, which a sync reads for the text as typed
 * (src/sources/site/raw-text.ts), holds only events that have not ended yet on a real site: The
 * Events Calendar narrows every event query that names no dates of its own to events ending from
 * now on, and that route cannot name any. The route for one event by id is not narrowed. Runs
 * against the sandbox and, with CALSYNC_CONTRACT_URL, a real site.
 */

type RawItem = { id: number; title: { raw: string }; content: { raw: string } };

describe('wp/v2 tribe_events: the list leaves out ended events, the route by id does not', () => {
  let t: Target;
  let c: CalendarClient;
  let wp: CalendarClient;
  useTarget((target) => {
    t = target;
    c = target.client();
    wp = target.client({ namespace: 'wp/v2' });
  });
  const typed = `Tom's "late" set -- A & B`;
  const list = (ids: number[]) =>
    wp.request<RawItem[]>({ method: 'GET', path: '/tribe_events', query: { include: ids.join(','), context: 'edit', status: 'any', per_page: '100', _fields: 'id,title,content' } });
  const one = (id: number) => wp.request<RawItem>({ method: 'GET', path: `/tribe_events/${id}`, query: { context: 'edit', _fields: 'id,title,content' } });

  it('regression: an event that ended is missing from /wp/v2/tribe_events?include=… (so the sync copied its rendered title)', async () => {
    const past = await c.events.create({ ...eventBody(`${t.prefix} past ${typed}`), start_date: '2020-03-02 10:00:00', end_date: '2020-03-02 11:00:00' } as never);
    t.track('events', past.id);
    const upcoming = await c.events.create(eventBody(`${t.prefix} upcoming ${typed}`, 9) as never);
    t.track('events', upcoming.id);
    expect((await list([past.id, upcoming.id])).map((i) => i.id)).toEqual([upcoming.id]);
    const item = await one(past.id);
    expect([item.id, item.title.raw]).toEqual([past.id, `${t.prefix} past ${typed}`]);
  });

  it('the route by id: 404 rest_post_invalid_id for an unknown id, 401 rest_forbidden_context without edit rights', async () => {
    const missing = await caught(() => one(2_000_000_000));
    expect(missing).toBeInstanceOf(ApiError);
    expect([(missing as ApiError).status, (missing as ApiError).code]).toEqual([404, 'rest_post_invalid_id']);
    const ev = await c.events.create(eventBody(`${t.prefix} guarded`, 10) as never);
    t.track('events', ev.id);
    const anon = await caught(() => t.anonymous({ namespace: 'wp/v2' }).request({ method: 'GET', path: `/tribe_events/${ev.id}`, query: { context: 'edit' } }));
    expect(anon).toBeInstanceOf(ApiError);
    expect([(anon as ApiError).status, (anon as ApiError).code]).toEqual([401, 'rest_forbidden_context']);
  });
});
