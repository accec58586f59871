import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FetchError, fetchSource } from '../../src/sources/fetch/index.ts';
import { fakeLookup, installTripwire, rejection, startServer, within, type TestServer, testServerAllow } from './support.ts';

const allow = testServerAllow;

let tripwire: ReturnType<typeof installTripwire>;
let server: TestServer;
let other: TestServer;
let redirectTo = '';

beforeAll(async () => {
  tripwire = installTripwire();
  other = await startServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/calendar' });
    res.end(`other ${req.headers.authorization ?? 'no-auth'}`);
  });
  server = await startServer((req, res) => {
    const url = new URL(req.url ?? '/', server.origin);
    const hop = /^\/hop\/(\d+)$/.exec(url.pathname);
    if (hop) {
      const n = Number(hop[1]);
      if (n === 0) {
        res.writeHead(200, { 'content-type': 'text/calendar', etag: '"final"' });
        res.end(`final ${req.headers.authorization ?? 'no-auth'}`);
      } else {
        // Relative Location on purpose: it must resolve against the current hop.
        res.writeHead(n % 2 ? 302 : 301, { location: `/hop/${n - 1}` });
        res.end('redirect body that is never read');
      }
    } else if (url.pathname === '/to') {
      res.writeHead(307, { location: redirectTo });
      res.end();
    } else if (url.pathname === '/no-location') {
      res.writeHead(302);
      res.end();
    } else {
      res.writeHead(404);
      res.end();
    }
  });
});
afterAll(async () => {
  tripwire.restore();
  await server.close();
  await other.close();
});
beforeEach(() => {
  tripwire.dialed.length = 0;
});

describe('redirects', () => {
  it('follows 5 redirects and reports the final URL', async () => {
    const before = server.requests.length;
    const r = await within(5000, fetchSource(`${server.origin}/hop/5`, { allow }));
    expect(r.status).toBe(200);
    expect(r.body?.toString()).toBe('final no-auth');
    expect(r.url).toBe(`${server.origin}/hop/5`);
    expect(r.finalUrl).toBe(`${server.origin}/hop/0`);
    expect(r.etag).toBe('"final"');
    expect(server.requests.length - before).toBe(6);
  });

  it('refuses the 6th redirect with too-many-redirects', async () => {
    const before = server.requests.length;
    const err = await rejection(within(5000, fetchSource(`${server.origin}/hop/6`, { allow })));
    expect(err).toBeInstanceOf(FetchError);
    expect(err.code).toBe('too-many-redirects');
    expect(err.message).toMatch(/more than 5 redirects/);
    expect(server.requests.length - before).toBe(6); // the 7th request is never made
  });

  it('honours a smaller maxRedirects, including 0', async () => {
    expect((await rejection(fetchSource(`${server.origin}/hop/3`, { allow, maxRedirects: 2 }))).code).toBe('too-many-redirects');
    expect((await rejection(fetchSource(`${server.origin}/hop/1`, { allow, maxRedirects: 0 }))).code).toBe('too-many-redirects');
    expect((await fetchSource(`${server.origin}/hop/2`, { allow, maxRedirects: 2 })).status).toBe(200);
  });

  it('refuses a redirect from an allowed host to a private address, without connecting there', async () => {
    redirectTo = 'http://10.0.0.1/feed.ics';
    const err = await rejection(within(5000, fetchSource(`${server.origin}/to`, { allow })));
    expect(err.code).toBe('blocked-address');
    expect(err.url).toBe('http://10.0.0.1/feed.ics');
    expect(tripwire.dialed).toEqual(['127.0.0.1']);
  });

  it('refuses a redirect to the metadata address and to IPv6 loopback', async () => {
    for (const target of ['http://169.254.169.254/latest/meta-data/', `http://[::1]:${server.port}/`]) {
      redirectTo = target;
      const err = await rejection(within(5000, fetchSource(`${server.origin}/to`, { allow })));
      expect(err.code).toBe('blocked-address');
    }
  });

  it('refuses a redirect to a name that resolves to a private address', async () => {
    redirectTo = `http://internal.example:${server.port}/`;
    const lookup = fakeLookup({ 'internal.example': ['192.168.0.10'] });
    const err = await rejection(within(5000, fetchSource(`${server.origin}/to`, { allow, lookup })));
    expect(err.code).toBe('blocked-address');
    expect(err.message).toMatch(/internal\.example resolves to 192\.168\.0\.10/);
    expect(lookup.calls).toEqual(['internal.example']);
    expect(tripwire.dialed).toEqual(['127.0.0.1']);
  });

  it('regression: a redirect from an allowed feed reached another port of the same host; each hop is checked against host[:port]', async () => {
    redirectTo = `http://127.0.0.1:${other.port}/internal-admin`;
    const before = other.connections;
    const err = await rejection(within(5000, fetchSource(`${server.origin}/to`, { allow: [`127.0.0.1:${server.port}`] })));
    expect(err.code).toBe('blocked-address');
    expect(err.url).toBe(`http://127.0.0.1:${other.port}/internal-admin`);
    expect(other.connections).toBe(before);
  });

  it('refuses a redirect to a non-http scheme', async () => {
    for (const target of ['file:///etc/passwd', 'ftp://example.org/cal.ics', 'gopher://127.0.0.1:6379/_FLUSHALL']) {
      redirectTo = target;
      const err = await rejection(within(5000, fetchSource(`${server.origin}/to`, { allow })));
      expect(err.code).toBe('unsupported-scheme');
    }
  });

  it('treats a 3xx without Location as an http-status error', async () => {
    const err = await rejection(fetchSource(`${server.origin}/no-location`, { allow }));
    expect(err.code).toBe('http-status');
    expect(err.status).toBe(302);
  });

  it('keeps URL credentials within the origin and drops them across origins', async () => {
    const same = await fetchSource(`http://u:p@127.0.0.1:${server.port}/hop/2`, { allow });
    expect(same.body?.toString()).toBe(`final Basic ${Buffer.from('u:p').toString('base64')}`);

    redirectTo = `${other.origin}/elsewhere`;
    const cross = await fetchSource(`http://u:p@127.0.0.1:${server.port}/to`, { allow });
    expect(cross.finalUrl).toBe(`${other.origin}/elsewhere`);
    expect(cross.body?.toString()).toBe('other no-auth');
  });

  it('never shows credentials from a redirect target', async () => {
    redirectTo = 'http://admin:hunter2@10.9.9.9/';
    const err = await rejection(fetchSource(`${server.origin}/to`, { allow }));
    expect(err.code).toBe('blocked-address');
    expect(`${err.url} ${err.message}`).not.toMatch(/hunter2|admin/);
  });
});
