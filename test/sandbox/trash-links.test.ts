import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSite, type TestSite } from './helpers.ts';

/**
 * The page of events a trashed venue is unlinked from (src/sandbox/trash-links.ts), as measured on
 * a real TEC 6.17.2 site with 12 upcoming events created in another order than their starts: the
 * 10 that start first lost the venue, the last two kept it; events that have ended and drafts
 * keep it too. (test/contract/linked-trash.test.ts checks the rest on both.)
 */
let site: TestSite;
beforeAll(async () => {
  site = await openSite();
});
afterAll(async () => {
  await site.sb.close();
});

describe('trashing a venue', () => {
  it('unlinks it from the first 10 upcoming published events by start, not by creation', async () => {
    const v = await site.call('POST', '/venues', { body: { venue: 'Order Hall' } });
    const titles: string[] = [];
    for (let i = 0; i < 12; i++) {
      const month = String(((i * 5) % 12) + 1).padStart(2, '0');
      titles.push(`O${i}`);
      await site.call('POST', '/events', { body: { title: `O${i}`, start_date: `2045-${month}-10 10:00:00`, end_date: `2045-${month}-10 11:00:00`, venue: v.body.id } });
    }
    await site.call('POST', '/events', { body: { title: 'ended', start_date: '2020-01-10 10:00:00', end_date: '2020-01-10 11:00:00', venue: v.body.id } });
    await site.call('POST', '/events', { body: { title: 'draft', status: 'draft', start_date: '2045-01-01 10:00:00', end_date: '2045-01-01 11:00:00', venue: v.body.id } });
    expect((await site.call('DELETE', `/venues/${v.body.id}`)).body.status).toBe('trash');
    const listed = await site.call('GET', '/events?start_date=2000-01-01&end_date=2046-12-31&per_page=50&status=publish,draft');
    const kept = (listed.body.events as Array<{ title: string; venue: unknown }>).filter((e) => !Array.isArray(e.venue)).map((e) => e.title).sort();
    // November and December: O2 and O7.
    expect(kept).toEqual(['O2', 'O7', 'draft', 'ended']);
  });
});
