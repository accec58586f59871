import zlib from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_USER_AGENT, FetchError, fetchSource } from '../../src/sources/fetch/index.ts';
import { installTripwire, rejection, startServer, within, type TestServer, testServerAllow } from './support.ts';

const allow = testServerAllow;
const FEED = 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n';

let tripwire: ReturnType<typeof installTripwire>;
beforeAll(() => {
  tripwire = installTripwire();
});
afterAll(() => tripwire.restore());

describe('fetchSource over http', () => {
  let server: TestServer;
  let version = 'v1';
  let body = FEED;
  beforeAll(async () => {
    server = await startServer((req, res) => {
      const url = req.url ?? '/';
      if (url === '/feed.ics') {
        res.writeHead(200, { 'content-type': 'text/calendar; charset=utf-8' });
        res.end(FEED);
      } else if (url === '/conditional.ics') {
        const etag = `"${version}"`;
        const lastModified = version === 'v1' ? 'Mon, 01 Jan 2024 00:00:00 GMT' : 'Tue, 02 Jan 2024 00:00:00 GMT';
        if (req.headers['if-none-match'] === etag && req.headers['if-modified-since'] === lastModified) {
          res.writeHead(304, { etag }); // no Last-Modified on purpose: the old one must carry over
          res.end();
          return;
        }
        res.writeHead(200, { etag, 'last-modified': lastModified, 'content-type': 'text/calendar' });
        res.end(body);
      } else if (url.startsWith('/encoded/')) {
        const enc = url.slice('/encoded/'.length);
        const raw = Buffer.from(FEED.repeat(100));
        const data =
          enc === 'gzip'
            ? zlib.gzipSync(raw)
            : enc === 'br'
              ? zlib.brotliCompressSync(raw)
              : enc === 'deflate'
                ? zlib.deflateSync(raw)
                : enc === 'deflate-raw'
                  ? zlib.deflateRawSync(raw)
                  : raw;
        res.writeHead(200, { 'content-encoding': enc === 'deflate-raw' ? 'deflate' : enc });
        res.end(data);
      } else if (url.startsWith('/truncated/')) {
        const enc = url.slice('/truncated/'.length);
        const raw = Buffer.from(FEED.repeat(1000));
        const packed = enc === 'br' ? zlib.brotliCompressSync(raw) : enc === 'deflate' ? zlib.deflateSync(raw) : zlib.gzipSync(raw);
        res.writeHead(200, { 'content-encoding': enc });
        res.end(packed.subarray(0, packed.length - 20));
      } else if (url === '/garbage-br') {
        res.writeHead(200, { 'content-encoding': 'br' });
        res.end('this is not brotli at all, not even close');
      } else if (url === '/zstd') {
        res.writeHead(200, { 'content-encoding': 'zstd' });
        res.end('whatever');
      } else if (url === '/status/404') {
        res.writeHead(404);
        res.end('nope');
      } else if (url === '/status/401') {
        res.writeHead(401);
        res.end();
      } else if (url === '/status/429') {
        res.writeHead(429, { 'retry-after': '120' });
        res.end();
      } else if (url === '/status/503') {
        res.writeHead(503);
        res.end();
      } else {
        res.writeHead(500);
        res.end();
      }
    });
  });
  afterAll(() => server.close());
  afterEach(() => {
    expect(tripwire.dialed.every((a) => a === '127.0.0.1')).toBe(true);
  });

  it('returns the body, status, content type and both URLs of a plain 200', async () => {
    const r = await within(5000, fetchSource(`${server.origin}/feed.ics`, { allow }));
    expect(r.status).toBe(200);
    expect(r.notModified).toBe(false);
    expect(r.body?.toString()).toBe(FEED);
    expect(r.bytes).toBe(Buffer.byteLength(FEED));
    expect(r.contentType).toBe('text/calendar; charset=utf-8');
    expect(r.url).toBe(`${server.origin}/feed.ics`);
    expect(r.finalUrl).toBe(`${server.origin}/feed.ics`);
  });

  it('sends a descriptive User-Agent (configurable) and accepts gzip, deflate and br', async () => {
    await fetchSource(`${server.origin}/feed.ics`, { allow });
    const sent = server.requests.at(-1)!.headers;
    expect(sent['user-agent']).toBe(DEFAULT_USER_AGENT);
    expect(DEFAULT_USER_AGENT).toMatch(/^calsync\/\d+\.\d+\.\d+ \(\+https:\/\/github\.com\/calsync\/calsync\)$/);
    expect(sent['accept-encoding']).toBe('gzip, deflate, br');
    await fetchSource(`${server.origin}/feed.ics`, { allow, userAgent: 'my-site-importer/2' });
    expect(server.requests.at(-1)!.headers['user-agent']).toBe('my-site-importer/2');
  });

  it('round-trips ETag and Last-Modified: the second fetch is a 304 with no body', async () => {
    version = 'v1';
    const first = await fetchSource(`${server.origin}/conditional.ics`, { allow });
    expect(first.notModified).toBe(false);
    expect(first.etag).toBe('"v1"');
    expect(first.lastModified).toBe('Mon, 01 Jan 2024 00:00:00 GMT');

    const second = await fetchSource(`${server.origin}/conditional.ics`, {
      allow,
      conditional: { etag: first.etag, lastModified: first.lastModified },
    });
    const sent = server.requests.at(-1)!.headers;
    expect(sent['if-none-match']).toBe('"v1"');
    expect(sent['if-modified-since']).toBe('Mon, 01 Jan 2024 00:00:00 GMT');
    expect(second.status).toBe(304);
    expect(second.notModified).toBe(true);
    expect(second.body).toBeUndefined();
    expect(second.bytes).toBe(0);
    expect(second.etag).toBe('"v1"');
    expect(second.lastModified).toBe('Mon, 01 Jan 2024 00:00:00 GMT');

    // The feed changes: the old validators no longer match, and the new ones come back.
    version = 'v2';
    body = FEED.replace('2.0', '2.0\r\nX-WR-CALNAME:changed');
    const third = await fetchSource(`${server.origin}/conditional.ics`, {
      allow,
      conditional: { etag: second.etag, lastModified: second.lastModified },
    });
    expect(third.notModified).toBe(false);
    expect(third.body?.toString()).toContain('changed');
    expect(third.etag).toBe('"v2"');
    expect(third.lastModified).toBe('Tue, 02 Jan 2024 00:00:00 GMT');
  });

  it('sends no conditional headers on a first run', async () => {
    await fetchSource(`${server.origin}/conditional.ics`, { allow });
    const sent = server.requests.at(-1)!.headers;
    expect(sent['if-none-match']).toBeUndefined();
    expect(sent['if-modified-since']).toBeUndefined();
  });

  it.each(['gzip', 'br', 'deflate', 'deflate-raw', 'identity'])('decodes a %s body', async (enc) => {
    const r = await fetchSource(`${server.origin}/encoded/${enc}`, { allow });
    expect(r.body?.toString()).toBe(FEED.repeat(100));
    expect(r.bytes).toBe(Buffer.byteLength(FEED) * 100);
  });

  it.each(['truncated/gzip', 'truncated/br', 'truncated/deflate', 'garbage-br'])(
    'fails a corrupt body (%s) instead of returning half a feed',
    async (path) => {
      const err = await rejection(within(5000, fetchSource(`${server.origin}/${path}`, { allow })));
      expect(err).toBeInstanceOf(FetchError);
      expect(err.code).toBe('network');
      expect(err.message).toMatch(/corrupt or truncated/);
    },
  );

  it('fails a content encoding it did not ask for', async () => {
    const err = await rejection(fetchSource(`${server.origin}/zstd`, { allow }));
    expect(err.code).toBe('network');
    expect(err.message).toMatch(/unsupported content-encoding "zstd"/);
  });

  it.each([
    [404, /not found|moved or removed/i],
    [401, /access rights/],
    [503, /temporary/],
  ])('turns a %i into an http-status error with advice', async (status, advice) => {
    const err = await rejection(fetchSource(`${server.origin}/status/${status}`, { allow }));
    expect(err).toBeInstanceOf(FetchError);
    expect(err.code).toBe('http-status');
    expect(err.status).toBe(status);
    expect(err.url).toBe(`${server.origin}/status/${status}`);
    expect(err.message).toMatch(advice);
    expect(err.retryable).toBe(status >= 500);
  });

  it('keeps Retry-After of a 429 for the job backoff', async () => {
    const err = await rejection(fetchSource(`${server.origin}/status/429`, { allow }));
    expect(err.code).toBe('http-status');
    expect(err.status).toBe(429);
    expect(err.retryAfterMs).toBe(120_000);
    expect(err.retryable).toBe(true);
  });

  it('sends URL credentials as Basic auth and never shows them', async () => {
    const r = await fetchSource(`http://alice:s3cr%40t@127.0.0.1:${server.port}/feed.ics`, { allow });
    const sent = server.requests.at(-1)!.headers;
    expect(sent.authorization).toBe(`Basic ${Buffer.from('alice:s3cr@t').toString('base64')}`);
    expect(r.url).toBe(`${server.origin}/feed.ics`);
    expect(r.finalUrl).toBe(`${server.origin}/feed.ics`);

    const err = await rejection(fetchSource(`http://alice:s3cr%40t@127.0.0.1:${server.port}/status/404`, { allow }));
    expect(err.code).toBe('http-status');
    expect(`${err.message} ${err.url} ${err.stack}`).not.toMatch(/s3cr|alice/);
  });

  it('reports an unreachable server as a network error', async () => {
    const closed = await startServer(() => {});
    const port = closed.port;
    await closed.close();
    const err = await rejection(within(5000, fetchSource(`http://127.0.0.1:${port}/`, { allow })));
    expect(err).toBeInstanceOf(FetchError);
    expect(err.code).toBe('network');
    expect(err.message).toMatch(/refused the connection/);
    expect(err.retryable).toBe(true);
  });
});
