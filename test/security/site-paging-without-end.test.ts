import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { CalendarClient } from '../../src/api/index.ts';
import { ResponseFormatError } from '../../src/api/errors/index.ts';
import { testSite } from '../support/site.ts';

/**
 * Regression: the end of a paged list was only ever the site's word. A site claiming
 * `total_pages: 1000000000`, or a cache in front of it keyed without the query string (every page
 * is page 1), was read page after page without end: an export or a sync of such a site never
 * finished (and with an honest page count, silently saw page 1's records as the whole window).
 * Here a proxy in front of the sandbox answers every page with page 1 and a billion pages.
 */

/** The sandbox site behind a proxy that serves page 1 for every page of /events and claims 1e9 pages. */
async function pageOneForever(target: string): Promise<{ url: string; listRequests: () => number; close(): Promise<void> }> {
  const upstream = new URL(target);
  let lists = 0;
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', upstream);
    const isList = req.method === 'GET' && /\/events$/.test(u.pathname);
    if (isList) {
      lists++;
      // Without the fix the client would read a billion pages: past 50 the proxy ends the list, so
      // that the test fails on its assertions instead of running into its timeout.
      if (lists > 50) {
        res.writeHead(404, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify({ code: 'events-archive-page-not-found', message: 'past the end', data: { status: 404 } }));
      }
      u.searchParams.set('page', '1');
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      void fetch(new URL(u.pathname + u.search, upstream), {
        method: req.method,
        headers: { ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}), 'content-type': 'application/json' },
        body: body.length ? body : undefined,
      }).then(async (r) => {
        let text = await r.text();
        if (isList && r.ok) text = JSON.stringify({ ...(JSON.parse(text) as object), total: 1_000_000_000, total_pages: 1_000_000_000 });
        res.writeHead(r.status, { 'content-type': 'application/json' });
        res.end(text);
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${upstream.pathname}`,
    listRequests: () => lists,
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}

describe('regression: a site answering every page with the same records was paged without end', () => {
  it('the listing ends with response-format after two pages of nothing new', { timeout: 60_000 }, async () => {
    const env = await testSite();
    for (let i = 0; i < 3; i++) {
      await env.client.events.create({ title: `e${i}`, start_date: `2026-05-0${i + 1} 10:00:00`, end_date: `2026-05-0${i + 1} 11:00:00`, timezone: 'UTC', status: 'publish' } as never);
    }
    const proxy = await pageOneForever(env.site.connection.restRoot);
    const client = new CalendarClient({ ...env.site.connection, restRoot: proxy.url });
    try {
      const seen: number[] = [];
      let err: unknown;
      try {
        for await (const e of client.events.iterate({ start_date: '2026-01-02 00:00:00', end_date: '2026-12-31 23:59:59', per_page: 2 }, { concurrency: 1 })) seen.push(e.id);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ResponseFormatError);
      expect((err as ResponseFormatError).code).toBe('response-format');
      expect((err as Error).message).toContain('hold only records of earlier pages');
      expect(new Set(seen).size).toBe(2);
      expect(proxy.listRequests()).toBeLessThanOrEqual(4);
    } finally {
      await client.close();
      await proxy.close();
      await env.close();
    }
  });

  it('an honest site is paged to its end as before', async () => {
    const env = await testSite();
    try {
      for (let i = 0; i < 7; i++) {
        await env.client.events.create({ title: `h${i}`, start_date: `2026-05-0${i + 1} 10:00:00`, end_date: `2026-05-0${i + 1} 11:00:00`, timezone: 'UTC', status: 'publish' } as never);
      }
      const ids: number[] = [];
      for await (const e of env.client.events.iterate({ start_date: '2026-01-02 00:00:00', end_date: '2026-12-31 23:59:59', per_page: 2 })) ids.push(e.id);
      expect(new Set(ids).size).toBe(7);
    } finally {
      await env.close();
    }
  });
});
