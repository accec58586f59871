import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CalendarClient } from '../../src/api/index.ts';
import { RawTextReader } from '../../src/sources/site/raw-text.ts';
import { testSite } from '../support/site.ts';

/**
 * A sync lists every upcoming event of its source through WordPress core's route (RawTextReader
 * `upcomingEvents`, for the hidden ones the v1 list leaves out). The first page says how many
 * pages there are; the rest are read side by side, and the page count being the site's word, a
 * site that claims pages without end is read only until a page repeats.
 */
describe('RawTextReader.upcomingEvents', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  beforeAll(async () => {
    env = await testSite();
    for (let i = 0; i < 230; i++) await env.client.events.create({ title: `Upcoming ${i}`, start_date: '2031-03-01 10:00:00', end_date: '2031-03-01 11:00:00', status: 'publish' } as never);
  }, 60_000);
  afterAll(() => env.close());

  it('reads the pages after the first side by side, each event once', async () => {
    let inFlight = 0;
    let most = 0;
    const counted = new CalendarClient({ ...env.site.connection, namespace: 'wp/v2', onRequest: () => void inFlight-- });
    const reader = new RawTextReader(counted);
    const sent = env.sandbox.stats().total;
    const origin = counted.requestPage.bind(counted);
    counted.requestPage = (req, opts) => {
      most = Math.max(most, ++inFlight);
      return origin(req, opts);
    };
    const all = await reader.upcomingEvents(4);
    expect(all?.size).toBe(230);
    expect(env.sandbox.stats().total - sent).toBe(3);
    // Pages 2 and 3 went out together, after page 1 told the count.
    expect(most).toBe(2);
    await counted.close();
  });

  it('a site claiming a billion pages, each the same, is read until a page repeats', async () => {
    let served = 0;
    const items = Array.from({ length: 100 }, (_, i) => ({ id: i + 1, modified_gmt: '2030-01-01T00:00:00' }));
    const server = http.createServer((req, res) => {
      served++;
      if (req.url?.startsWith('/wp-json/wp/v2/tribe_events')) res.writeHead(200, { 'content-type': 'application/json', 'x-wp-totalpages': '1000000000' }).end(JSON.stringify(items));
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const client = new CalendarClient({ restRoot: `http://127.0.0.1:${(server.address() as AddressInfo).port}/wp-json`, namespace: 'wp/v2' });
    try {
      const all = await new RawTextReader(client).upcomingEvents(4);
      expect(all?.size).toBe(100);
      // The first page, then at most one round of four side by side before a repeat ends it.
      expect(served).toBeLessThanOrEqual(5);
    } finally {
      await client.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
