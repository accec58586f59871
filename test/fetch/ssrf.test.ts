import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FetchError, fetchSource } from '../../src/sources/fetch/index.ts';
import { fakeLookup, installTripwire, rejection, startServer, within, type TestServer } from './support.ts';

/**
 * The SSRF guard with no allow list: every refusal must be a `blocked-address` FetchError and
 * must happen before any socket is dialed. The tripwire records every dial (and stops any that
 * would leave loopback); the local server counts TCP connections.
 */

let tripwire: ReturnType<typeof installTripwire>;
let server: TestServer;
beforeAll(async () => {
  tripwire = installTripwire();
  server = await startServer((_req, res) => res.end('BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n'));
});
afterAll(async () => {
  tripwire.restore();
  await server.close();
});
beforeEach(() => {
  tripwire.dialed.length = 0;
});

async function expectBlocked(location: string, opts: Parameters<typeof fetchSource>[1] = {}) {
  const before = server.connections;
  const err = await rejection(within(5000, fetchSource(location, opts)));
  expect(err).toBeInstanceOf(FetchError);
  expect(err.code).toBe('blocked-address');
  expect(err.message).toMatch(/^Refused to fetch .+ allow list \(`allow` of a configured source, `--allow` of `calsync import`\) if this feed is trusted\.$/);
  expect(tripwire.dialed).toEqual([]);
  expect(server.connections).toBe(before);
  return err as FetchError;
}

describe('SSRF guard (no allow list)', () => {
  it('the local server is reachable when allowed, so the refusals below are the guard', async () => {
    const r = await fetchSource(`http://127.0.0.1:${server.port}/`, { allow: [`127.0.0.1:${server.port}`] });
    expect(r.status).toBe(200);
    expect(tripwire.dialed).toEqual(['127.0.0.1']);
  });

  it.each([
    'http://127.0.0.1:PORT/feed.ics',
    'http://localhost:PORT/feed.ics',
    'http://10.1.2.3/feed.ics',
    'http://172.16.0.1/feed.ics',
    'http://192.168.1.1/feed.ics',
    'http://169.254.169.254/latest/meta-data/',
    'http://100.64.0.1/',
    'http://0.0.0.0:PORT/',
    'http://255.255.255.255/',
    'http://224.0.0.1/',
    'http://[::1]:PORT/',
    'http://[fc00::1]/',
    'http://[fd12:3456::1]/',
    'http://[fe80::1]/',
    'http://[::ffff:127.0.0.1]:PORT/',
    'http://[::ffff:a00:1]/',
    'http://[64:ff9b::a00:1]/',
    'http://[2002:a00:1::1]/',
    'http://[::127.0.0.1]:PORT/',
    'http://2130706433:PORT/',
    'http://0x7f.1:PORT/',
    'http://0177.0.0.1:PORT/',
    'http://127.1:PORT/',
    'https://127.0.0.1:PORT/',
    'webcal://127.0.0.1:PORT/cal.ics',
  ])('refuses %s without connecting', async (template) => {
    await expectBlocked(template.replace('PORT', String(server.port)));
  });

  it('names the address and what it is in the message', async () => {
    const err = await expectBlocked('http://10.0.0.5/feed.ics');
    expect(err.message).toBe(
      "Refused to fetch http://10.0.0.5/feed.ics: 10.0.0.5 is a private address. Add 10.0.0.5 to the source's allow list (`allow` of a configured source, `--allow` of `calsync import`) if this feed is trusted.",
    );
    expect(err.url).toBe('http://10.0.0.5/feed.ics');
    expect(err.retryable).toBe(false);
    const meta = await expectBlocked('http://169.254.169.254/latest/meta-data/');
    expect(meta.message).toMatch(/link-local.*metadata/);
  });

  it('refuses a DNS name that resolves to a private address', async () => {
    const lookup = fakeLookup({ 'intranet.example': ['10.0.0.1'] });
    const err = await expectBlocked(`http://intranet.example:${server.port}/feed.ics`, { lookup });
    expect(lookup.calls).toEqual(['intranet.example']);
    expect(err.message).toMatch(/intranet\.example resolves to 10\.0\.0\.1, a private address/);
  });

  it('refuses a DNS name when ANY of its addresses is private (one public + one private)', async () => {
    const lookup = fakeLookup({ 'mixed.example': ['93.184.215.14', '10.0.0.1'] });
    const err = await expectBlocked('http://mixed.example/feed.ics', { lookup });
    expect(err.message).toMatch(/10\.0\.0\.1/);
  });

  it('refuses a DNS name that resolves to loopback, IPv6 private or metadata addresses', async () => {
    const lookup = fakeLookup({
      'loop.example': ['127.0.0.1'],
      'v6.example': ['2606:4700::1', 'fd00::1'],
      'meta.example': ['169.254.169.254'],
      'mapped.example': ['::ffff:192.168.0.1'],
    });
    for (const host of ['loop.example', 'v6.example', 'meta.example', 'mapped.example']) {
      await expectBlocked(`http://${host}:${server.port}/`, { lookup });
    }
  });

  it('refuses URL credentials without leaking them', async () => {
    const err = await expectBlocked('http://admin:hunter2@10.0.0.1/feed.ics');
    expect(err.url).toBe('http://10.0.0.1/feed.ics');
    expect(`${err.message} ${err.url} ${String(err.cause)}`).not.toMatch(/hunter2|admin/);
  });

  it('does not let an allowed address open up other addresses', async () => {
    await expectBlocked('http://10.0.0.1/', { allow: ['127.0.0.1'] });
    await expectBlocked(`http://[::1]:${server.port}/`, { allow: ['127.0.0.1'] });
    await expectBlocked('http://10.2.0.1/', { allow: ['10.1.0.0/16'] });
  });
});

describe('allow list', () => {
  it('admits an allowed address literal', async () => {
    const r = await fetchSource(`http://127.0.0.1:${server.port}/`, { allow: [`127.0.0.1/32:${server.port}`] });
    expect(r.status).toBe(200);
  });

  it('regression: a name resolving to an allowed address was admitted; an address entry admits that address as written only', async () => {
    const lookup = fakeLookup({ 'feed.internal': ['127.0.0.1'] });
    const before = server.connections;
    const err = await rejection(fetchSource(`http://feed.internal:${server.port}/cal.ics`, { allow: [`127.0.0.1:${server.port}`], lookup }));
    expect(err.code).toBe('blocked-address');
    expect(err.message).toMatch(/Add feed\.internal:\d+ to the source's allow list/);
    expect(server.connections).toBe(before);
  });

  it('regression: an allow entry without a port opened every port of the address; it covers 80 and 443 only', async () => {
    const before = server.connections;
    const err = await rejection(fetchSource(`http://127.0.0.1:${server.port}/`, { allow: ['127.0.0.1'] }));
    expect(err.code).toBe('blocked-address');
    expect(err.message).toContain(`Add 127.0.0.1:${server.port} to the source's allow list`);
    expect(server.connections).toBe(before);
  });

  it('admits an allowed host name (with its port) whatever it resolves to', async () => {
    const lookup = fakeLookup({ 'feed.internal': ['127.0.0.1'] });
    const r = await fetchSource(`http://FEED.internal.:${server.port}/cal.ics`, { allow: [`feed.internal:${server.port}`], lookup });
    expect(r.status).toBe(200);
    expect(tripwire.dialed).toEqual(['127.0.0.1']);
    expect(server.requests.at(-1)!.headers.host).toBe(`feed.internal.:${server.port}`);
  });

  it('rejects malformed allow entries loudly', async () => {
    const before = server.connections;
    const url = `http://127.0.0.1:${server.port}/`;
    await expect(fetchSource(url, { allow: ['10.0.0.0/99'] })).rejects.toThrow(/Invalid CIDR/);
    await expect(fetchSource(url, { allow: ['http://x/'] })).rejects.toThrow(TypeError);
    expect(server.connections).toBe(before);
  });
});
