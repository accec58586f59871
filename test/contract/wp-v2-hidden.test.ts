import { describe, expect, it } from 'vitest';
import { ApiError, type CalendarClient } from '../../src/api/index.ts';
import { caught, eventBody, useTarget, type Target } from './harness.ts';

/**
 * An event hidden from listings is left out of the v1 event list, but WordPress core's
 * `/wp/v2/tribe_events` list holds it: a sync finds the hidden events it never copied there
 * (src/sources/site/raw-text.ts, `upcomingEvents`). That list is paged with `page` and refuses a
 * page past the last with 400 rest_post_invalid_page_number. Runs against the sandbox and, with
 * CALSYNC_CONTRACT_URL, a real site.
 */

type Listed = { id: number; modified_gmt?: string };

describe('wp/v2 tribe_events: hidden events are in the core list, which pages', () => {
  let t: Target;
  let c: CalendarClient;
  let wp: CalendarClient;
  useTarget((target) => {
    t = target;
    c = target.client();
    wp = target.client({ namespace: 'wp/v2' });
  });
  const page = (n: number, perPage: number, include?: number[]) =>
    wp.request<Listed[]>({ method: 'GET', path: '/tribe_events', query: { status: 'publish', per_page: String(perPage), page: String(n), orderby: 'id', order: 'asc', context: 'edit', _fields: 'id,modified_gmt', ...(include ? { include: include.join(',') } : {}) } });

  it('regression: an event hidden from listings is missing from the v1 list (so a sync never copied it) and present in the core list', async () => {
    const hidden = await c.events.create({ ...eventBody(`${t.prefix} hidden`, 11), hide_from_listings: true } as never);
    t.track('events', hidden.id);
    const shown = await c.events.create(eventBody(`${t.prefix} shown`, 11) as never);
    t.track('events', shown.id);
    const other = await c.events.create(eventBody(`${t.prefix} other`, 12) as never);
    t.track('events', other.id);
    const v1: number[] = [];
    for await (const e of c.events.iterate({ start_date: '2000-01-02 00:00:00', end_date: '2100-01-01 00:00:00', status: 'publish', per_page: 50 } as never)) v1.push(e.id);
    expect(v1).toContain(shown.id);
    expect(v1).not.toContain(hidden.id);

    // The core list of these three, two at a time, to its end: ids ascending, no repeats, all three
    // in it, the hidden one included. (Narrowed to them: other files' events come and go meanwhile,
    // and a page boundary moving under a whole-site listing skips one.)
    const ids: number[] = [];
    for (let n = 1; ; n++) {
      // A full last page is followed by the 400 past the end (tested below), not by an empty page.
      const items = await page(n, 2, [hidden.id, shown.id, other.id]).catch((err: unknown) => {
        if (n > 1 && err instanceof ApiError && err.code === 'rest_post_invalid_page_number') return [];
        throw err;
      });
      ids.push(...items.map((i) => i.id));
      expect(items.every((i) => typeof i.modified_gmt === 'string')).toBe(true);
      if (items.length < 2) break;
    }
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort((a, b) => a - b)).toEqual([hidden.id, shown.id, other.id].sort((a, b) => a - b));
  });

  it('a page past the last: 400 rest_post_invalid_page_number', async () => {
    const ev = await c.events.create(eventBody(`${t.prefix} only`, 12) as never);
    t.track('events', ev.id);
    const err = await caught(() => page(1_000_000, 100));
    expect(err).toBeInstanceOf(ApiError);
    expect([(err as ApiError).status, (err as ApiError).code]).toEqual([400, 'rest_post_invalid_page_number']);
  });
});
