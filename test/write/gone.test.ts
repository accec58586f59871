import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, CalendarClient, NotFoundError, goneAs } from '../../src/api/index.ts';
import { MemoryLedger } from '../../src/write/ledger.ts';
import { retireVanished } from '../../src/write/retire.ts';
import { RunReport } from '../../src/report/report.ts';
import { testSite } from '../support/site.ts';

/** The one "is it gone" check (src/api/errors/gone.ts), used by retire, the event writer and linked records. */
const err = (status: number, code: string, Cls = ApiError) => new Cls({ status, code, method: 'GET', route: '/events/:id', url: 'http://x/events/1' });

describe('goneAs', () => {
  const table: [string, unknown, 'trashed' | 'deleted' | undefined][] = [
    ['second DELETE of an event', err(410, 'event-is-in-trash'), 'trashed'],
    ['second DELETE of a venue', err(410, 'venue-is-in-trash'), 'trashed'],
    ['trashed event read on 6.17.2', err(403, 'event-no-longer-available'), 'trashed'],
    ['trashed event read on 6.17.1', err(403, 'event-not-accessible'), 'trashed'],
    ['trashed organizer read', err(403, 'organizer-not-accessible'), 'trashed'],
    ['unknown id', err(404, 'rest-event-not-found', NotFoundError), 'deleted'],
    ['unknown venue id (400 on the site)', err(400, 'rest_invalid_param', NotFoundError), 'deleted'],
    ['logged in without the capability', err(403, 'rest_forbidden'), undefined],
    ['delete refused', err(403, 'rest_cannot_delete'), undefined],
    ['password-protected event', err(403, 'event-password-protected'), undefined],
    ["a proxy's HTML 403", err(403, 'http_403'), undefined],
    ['server error', err(500, 'http_500'), undefined],
    ['not an API error', new Error('boom'), undefined],
  ];
  for (const [what, e, expected] of table) it(`${what} → ${expected}`, () => expect(goneAs(e)).toBe(expected));
});

/** A pass-through proxy in front of the sandbox that refuses every DELETE with 403 rest_forbidden. */
async function refusingProxy(upstreamRoot: string) {
  const upstream = new URL(upstreamRoot);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      if (req.method === 'DELETE') {
        res.writeHead(403, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ code: 'rest_forbidden', message: 'Sorry, you are not allowed to do that.', data: { status: 403 } }));
        return;
      }
      const headers = { ...req.headers };
      delete headers.host;
      delete headers.connection;
      const up = await request(`${upstream.origin}${req.url}`, { method: req.method as 'GET', headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
      const text = await up.body.text();
      res.writeHead(up.statusCode, { 'content-type': String(up.headers['content-type'] ?? 'application/json') });
      res.end(text);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${upstream.pathname}`,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

describe('retire: what counts as "already deleted on the site"', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  beforeAll(async () => {
    env = await testSite();
  });
  afterAll(() => env.close());

  async function seed(slug: string) {
    const { record } = await env.client.events.upsertBySlug(slug, { title: slug, timezone: 'UTC', start_date: '2031-05-01 10:00:00', end_date: '2031-05-01 11:00:00', status: 'publish' });
    const ledger = new MemoryLedger();
    await ledger.set('events', slug, { fp: 'x', id: record.id, start: '2031-05-01T10:00:00Z', at: new Date().toISOString() });
    return { id: record.id, ledger, report: new RunReport({ id: 'r', kind: 'import-ics', source: 'test', site: 's', language: 'en', dryRun: false }) };
  }
  const retire = (client: CalendarClient, s: Awaited<ReturnType<typeof seed>>) =>
    retireVanished({ client, ledger: s.ledger, report: s.report, policy: 'trash', seen: new Set(), cancelled: new Set(), force: true });

  it('regression: a DELETE refused with 403 rest_forbidden was taken for "already deleted": the ledger entry was dropped and the event reported retired while it stayed on the site', async () => {
    const s = await seed('gone-forbidden');
    const proxy = await refusingProxy(env.site.connection.restRoot);
    const client = new CalendarClient({ ...env.site.connection, restRoot: proxy.url });
    try {
      await retire(client, s);
    } finally {
      await client.close();
      await proxy.close();
    }
    expect(s.report.retire).toMatchObject({ retired: 0, failed: 1 });
    expect(await s.ledger.getMany('events', ['gone-forbidden'])).toHaveProperty('size', 1);
    expect((await env.client.events.get(s.id)).status).toBe('publish');
  });

  it('an event already trashed on the site (410 on DELETE) is retired and leaves the ledger', async () => {
    const s = await seed('gone-trashed');
    await env.client.events.delete(s.id);
    await retire(env.client, s);
    expect(s.report.retire).toMatchObject({ retired: 1, failed: 0 });
    expect(await s.ledger.getMany('events', ['gone-trashed'])).toHaveProperty('size', 0);
  });
});
