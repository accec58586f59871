import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { NetworkError, ApiError, type CalendarClient } from '../../src/api/index.ts';
import { WINDOW, caught, eventBody, isReal, openTarget, type Target } from './harness.ts';
import { slugify } from '../../src/model/identity.ts';
import type { VenueDraft } from '../../src/model/draft.ts';
import { LinkedResolver } from '../../src/write/linked.ts';
import { MemoryLedger } from '../../src/write/ledger.ts';
import { RunReport } from '../../src/report/report.ts';

/**
 * The sandbox's faults strike before a request is handled, so they never produce the hard case:
 * a create that landed but whose answer was lost. A small proxy in front of the sandbox does:
 * it forwards matching requests, lets the site commit them, then cuts the connection or answers
 * 502 like a gateway that gave up waiting. The client must find the record instead of creating
 * it a second time.
 */
type Mode = 'pass' | 'cut' | 'bad-gateway';

interface Proxy {
  url: string;
  /** How to answer the next `count` requests matching `method` + path suffix. */
  arm(method: string, suffix: string, mode: Mode, count?: number): void;
  close(): Promise<void>;
}

async function startProxy(upstreamRoot: string): Promise<Proxy> {
  const upstream = new URL(upstreamRoot);
  let rule: { method: string; suffix: string; mode: Mode; left: number } | undefined;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const path = req.url ?? '/';
      const pathname = path.split('?')[0]!;
      let mode: Mode = 'pass';
      if (rule && rule.left > 0 && req.method === rule.method && pathname.endsWith(rule.suffix)) {
        rule.left--;
        mode = rule.mode;
      }
      const headers = { ...req.headers };
      delete headers.host;
      delete headers.connection;
      const up = await request(`${upstream.origin}${path}`, {
        method: req.method as 'GET',
        headers,
        body: chunks.length ? Buffer.concat(chunks) : undefined,
      });
      const text = await up.body.text();
      if (mode === 'cut') {
        req.socket.destroy();
        return;
      }
      if (mode === 'bad-gateway') {
        res.writeHead(502, { 'content-type': 'text/html' });
        res.end('<html><body><h1>502 Bad Gateway</h1></body></html>');
        return;
      }
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(up.headers)) if (typeof v === 'string' && !['connection', 'keep-alive', 'transfer-encoding', 'content-length'].includes(k)) out[k] = v;
      res.writeHead(up.statusCode, out);
      res.end(text);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${upstream.pathname}`,
    arm(method, suffix, mode, count = 1) {
      rule = { method, suffix, mode, left: count };
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe.skipIf(isReal)('creates whose answer was lost (sandbox behind a cutting proxy)', () => {
  let t: Target;
  let proxy: Proxy;
  let c: CalendarClient;
  beforeAll(async () => {
    t = await openTarget();
    proxy = await startProxy(t.url);
    c = t.client({ restRoot: proxy.url, retry: { maxRetries: 3, minDelayMs: 5, maxDelayMs: 20 } });
  });
  afterAll(async () => {
    await proxy.close();
    await t.close();
  });

  const countEvents = async (search: string) => {
    const slugs: string[] = [];
    for await (const e of t.client().events.iterate({ ...WINDOW, search })) slugs.push(e.slug);
    return slugs;
  };

  for (const mode of ['cut', 'bad-gateway'] as const) {
    it(`upsert: the create landed, the answer was ${mode}: the record is found, not created twice`, async () => {
      const sb = t.sandbox!;
      sb.resetStats();
      proxy.arm('POST', '/events', mode);
      const slug = `${t.prefix}-lost-${mode}`;
      const { record, created } = await c.events.upsertBySlug(slug, eventBody(`${t.prefix}lost${mode}`, 12));
      expect(created).toBe(true);
      expect(record.slug).toBe(slug);
      expect(sb.stats().byRoute['POST /events']).toBe(1);
      expect(sb.stats().byRoute['GET /events/by-slug/:slug']).toBe(1);
      expect(await countEvents(`${t.prefix}lost${mode}`)).toEqual([slug]);
    });
  }

  it('venues, organizers and terms: a lost create answer is resolved by looking the record up', async () => {
    proxy.arm('POST', '/venues', 'cut');
    const v = await c.venues.upsertBySlug(`${t.prefix}-lost-venue`, { venue: `${t.prefix} lost venue` });
    expect(v).toMatchObject({ created: true, record: { slug: `${t.prefix}-lost-venue` } });
    proxy.arm('POST', '/organizers', 'bad-gateway');
    const o = await c.organizers.upsertBySlug(`${t.prefix}-lost-org`, { organizer: `${t.prefix} lost org` });
    expect(o.created).toBe(true);
    proxy.arm('POST', '/categories', 'cut');
    const cat = await c.categories.create({ name: `${t.prefix} lost cat`, slug: `${t.prefix}-lost-cat` });
    proxy.arm('POST', '/tags', 'cut');
    const tag = await c.tags.create({ name: `${t.prefix} lost tag` });
    const direct = t.client();
    expect((await direct.venues.list({ search: `${t.prefix} lost venue` })).items.map((x) => x.id)).toEqual([v.record.id]);
    expect((await direct.categories.list({ search: `${t.prefix} lost cat`, hide_empty: false })).items.map((x) => x.id)).toEqual([cat.id]);
    expect((await direct.tags.list({ search: `${t.prefix} lost tag`, hide_empty: false })).items.map((x) => x.id)).toEqual([tag.id]);
  });

  it('a create without a slug is verified through the caller\'s hook (venues, organizers): found, not repeated', async () => {
    const sb = t.sandbox!;
    const direct = t.client();
    sb.resetStats();
    proxy.arm('POST', '/venues', 'cut');
    const name = `${t.prefix} hooked venue`;
    const v = await c.venues.create({ venue: name }, { verify: (signal) => direct.venues.findBySlug(slugify(name, 200), { signal }) });
    expect(v.venue).toBe(name);
    expect(sb.stats().byRoute['POST /venues']).toBe(1);
    expect((await direct.venues.list({ search: name })).items.map((x) => x.id)).toEqual([v.id]);
  });

  it('a lost venue create through the write path is verified once by the executor\'s policy and ends in one venue', async () => {
    const sb = t.sandbox!;
    sb.resetStats();
    const report = new RunReport({ id: 'r', kind: 'import-csv', source: 'test', site: 's', language: 'en', dryRun: false });
    const resolver = new LinkedResolver(c, new MemoryLedger(), { dryRun: false, report });
    proxy.arm('POST', '/venues', 'bad-gateway');
    const name = `${t.prefix} resolver venue`;
    const id = await resolver.venue({ identity: name, venue: name, city: 'Lyon' } as VenueDraft);
    expect(id).toBeTypeOf('number');
    const s = sb.stats().byRoute;
    // One create, one verification lookup by the slug the site derives from the name: no repeat.
    expect(s['POST /venues']).toBe(1);
    expect(s['GET /venues/by-slug/:slug']).toBe(2);
    expect((await t.client().venues.list({ search: name })).items.map((x) => x.id)).toEqual([id]);
    expect(report.toJSON().counts.venues.created).toBe(1);
  });

  it('regression: a venue create obeys the client\'s retry policy, with no second loop of 6 attempts stacked on it (maxRetries 0)', async () => {
    const sb = t.sandbox!;
    sb.resetStats();
    const report = new RunReport({ id: 'r', kind: 'import-csv', source: 'test', site: 's', language: 'en', dryRun: false });
    const strict = t.client({ restRoot: proxy.url, retry: { maxRetries: 0, minDelayMs: 5, maxDelayMs: 20 } });
    const resolver = new LinkedResolver(strict, new MemoryLedger(), { dryRun: false, report });
    proxy.arm('POST', '/venues', 'cut');
    const name = `${t.prefix} no retry venue`;
    expect(await resolver.venue({ identity: name, venue: name } as VenueDraft)).toBeUndefined();
    expect(report.toJSON().counts.venues.failed).toBe(1);
    const s = sb.stats().byRoute;
    expect(s['POST /venues']).toBe(1);
    // The lookup before the create only: no verification, no repeat.
    expect(s['GET /venues/by-slug/:slug']).toBe(1);
  });

  it('a create without a slug cannot be looked up, so it is reported, never repeated', async () => {
    const sb = t.sandbox!;
    sb.resetStats();
    proxy.arm('POST', '/events', 'cut');
    const err = await caught(() => c.events.create(eventBody(`${t.prefix}noslug`, 13)));
    expect(err).toBeInstanceOf(NetworkError);
    expect(sb.stats().byRoute['POST /events']).toBe(1);
    expect(await countEvents(`${t.prefix}noslug`)).toHaveLength(1);
    proxy.arm('POST', '/events', 'bad-gateway');
    const gw = await caught(() => c.events.create(eventBody(`${t.prefix}noslug2`, 13)));
    expect((gw as ApiError).status).toBe(502);
    expect((gw as ApiError).code).toBe('http_502');
    expect(await countEvents(`${t.prefix}noslug2`)).toHaveLength(1);
  });

  it('updates are simply repeated: a lost answer to a by-slug update costs one more request', async () => {
    const slug = `${t.prefix}-lost-upd`;
    await c.events.upsertBySlug(slug, eventBody(`${t.prefix} lost upd`, 14));
    const before = c.stats().retries;
    proxy.arm('POST', `/events/by-slug/${slug}`, 'cut');
    const { record, created } = await c.events.upsertBySlug(slug, eventBody(`${t.prefix} lost upd 2`, 14));
    expect(created).toBe(false);
    expect(record.title).toBe(`${t.prefix} lost upd 2`);
    expect(c.stats().retries).toBe(before + 1);
  });
});
