import { mkdtempSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFeedHandler, renderIcs, writeArtifact, type FeedHandlerOptions } from '../../src/export/index.ts';
import { FIXTURES } from './fixtures.ts';

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** Raw HTTP (fetch would add Accept-Encoding and decompress behind our back). */
function request(base: string, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    // host/port/path rather than a URL string: a URL would normalize `..` away before sending.
    const { hostname, port } = new URL(base);
    const req = http.request({ host: hostname, port, path, method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function startServer(opts: FeedHandlerOptions): Promise<{ base: string; close: () => Promise<void> }> {
  const handler = createFeedHandler(opts);
  const server = http.createServer((req, res) => {
    handler(req, res).then(
      (handled) => {
        if (!handled) {
          res.writeHead(418, { 'Content-Type': 'text/plain' });
          res.end('not a feed path\n');
        }
      },
      (err: Error) => {
        res.writeHead(500);
        res.end(err.message);
      },
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { base: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}

describe('feed server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'calsync-feeds-'));
  const hits: { name: string; lang: string; status: number }[] = [];
  const en = renderIcs(FIXTURES, { name: 'city', lang: 'en', siteHost: 'events.example.org' });
  const fr = renderIcs(FIXTURES.slice(0, 2), { name: 'city', lang: 'fr', siteHost: 'events.example.org' });
  let etag = '';
  let server: { base: string; close: () => Promise<void> };
  let streaming: { base: string; close: () => Promise<void> };
  let pub: { base: string; close: () => Promise<void> };

  beforeAll(async () => {
    etag = (await writeArtifact(dir, 'city.en.ics', [en])).etag;
    await writeArtifact(dir, 'city.fr.ics', [fr]);
    await writeArtifact(dir, 'music.de.ics', [renderIcs([], { name: 'music', lang: 'de', siteHost: 'h' })]);
    server = await startServer({ dir, onHit: (h) => hits.push(h) });
    streaming = await startServer({ dir, cacheBytes: 0 });
    pub = await startServer({ dir, publicUrl: 'https://feeds.example.org/' });
  });
  afterAll(async () => {
    await Promise.all([server.close(), streaming.close(), pub.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves a feed with content type, strong ETag, Last-Modified and Cache-Control', async () => {
    const r = await request(server.base, '/feeds/city/en.ics');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/calendar; charset=utf-8');
    expect(r.headers.etag).toBe(etag);
    expect(r.headers.etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(r.headers['last-modified']).toBe(statSync(join(dir, 'city.en.ics')).mtime.toUTCString());
    expect(r.headers['cache-control']).toBe('public, max-age=300');
    expect(r.headers.vary).toBe('Accept-Encoding');
    expect(r.headers['content-encoding']).toBeUndefined();
    expect(r.body.toString('utf8')).toBe(en);
    expect(Number(r.headers['content-length'])).toBe(Buffer.byteLength(en));
    expect(hits.at(-1)).toEqual({ name: 'city', lang: 'en', status: 200 });
  });

  it('answers 304 to If-None-Match (exact, weak form, list, *) and 200 to a stale tag', async () => {
    for (const inm of [etag, `W/${etag}`, `"nope", ${etag}`, '*']) {
      const r = await request(server.base, '/feeds/city/en.ics', { 'If-None-Match': inm });
      expect(r.status, inm).toBe(304);
      expect(r.body.length).toBe(0);
      expect(r.headers.etag).toBe(etag);
    }
    expect((await request(server.base, '/feeds/city/en.ics', { 'If-None-Match': '"stale"' })).status).toBe(200);
    expect(hits.at(-2)).toEqual({ name: 'city', lang: 'en', status: 304 });
  });

  it('answers 304 to If-Modified-Since, unless If-None-Match says otherwise', async () => {
    const lm = (await request(server.base, '/feeds/city/en.ics')).headers['last-modified']!;
    expect((await request(server.base, '/feeds/city/en.ics', { 'If-Modified-Since': lm })).status).toBe(304);
    const later = new Date(Date.parse(lm) + 60_000).toUTCString();
    expect((await request(server.base, '/feeds/city/en.ics', { 'If-Modified-Since': later })).status).toBe(304);
    const earlier = new Date(Date.parse(lm) - 60_000).toUTCString();
    expect((await request(server.base, '/feeds/city/en.ics', { 'If-Modified-Since': earlier })).status).toBe(200);
    expect((await request(server.base, '/feeds/city/en.ics', { 'If-Modified-Since': lm, 'If-None-Match': '"stale"' })).status).toBe(200);
    expect((await request(server.base, '/feeds/city/en.ics', { 'If-Modified-Since': 'yesterday' })).status).toBe(200);
  });

  it('gzips when Accept-Encoding allows it, with its own ETag that also revalidates', async () => {
    const r = await request(server.base, '/feeds/city/en.ics', { 'Accept-Encoding': 'br;q=1, gzip;q=0.8' });
    expect(r.status).toBe(200);
    expect(r.headers['content-encoding']).toBe('gzip');
    expect(r.headers.etag).toBe(etag.replace(/"$/, '-gzip"'));
    expect(Number(r.headers['content-length'])).toBe(r.body.length);
    expect(r.body.length).toBeLessThan(Buffer.byteLength(en));
    expect(gunzipSync(r.body).toString('utf8')).toBe(en);
    const again = await request(server.base, '/feeds/city/en.ics', { 'Accept-Encoding': 'gzip', 'If-None-Match': r.headers.etag! });
    expect(again.status).toBe(304);
    for (const ae of ['gzip;q=0', 'identity', 'br']) {
      expect((await request(server.base, '/feeds/city/en.ics', { 'Accept-Encoding': ae })).headers['content-encoding'], ae).toBeUndefined();
    }
    expect((await request(server.base, '/feeds/city/en.ics', { 'Accept-Encoding': '*' })).headers['content-encoding']).toBe('gzip');
  });

  it('streams files above the cache size with the same validators and bodies', async () => {
    const plain = await request(streaming.base, '/feeds/city/en.ics');
    expect(plain.headers.etag).toBe(etag);
    expect(plain.body.toString('utf8')).toBe(en);
    const gz = await request(streaming.base, '/feeds/city/en.ics', { 'Accept-Encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).toString('utf8')).toBe(en);
    expect((await request(streaming.base, '/feeds/city/en.ics', { 'If-None-Match': etag })).status).toBe(304);
  });

  it('keeps validators when the export rewrites identical bytes, and changes them when bytes change', async () => {
    const before = await request(server.base, '/feeds/city/fr.ics');
    const same = await writeArtifact(dir, 'city.fr.ics', [fr]);
    expect(same.changed).toBe(false);
    const after = await request(server.base, '/feeds/city/fr.ics', { 'If-None-Match': before.headers.etag!, 'If-Modified-Since': before.headers['last-modified']! });
    expect(after.status).toBe(304);
    expect(after.headers['last-modified']).toBe(before.headers['last-modified']);

    const changed = renderIcs(FIXTURES.slice(0, 3), { name: 'city', lang: 'fr', siteHost: 'events.example.org' });
    const w = await writeArtifact(dir, 'city.fr.ics', [changed]);
    expect(w.changed).toBe(true);
    const fresh = await request(server.base, '/feeds/city/fr.ics', { 'If-None-Match': before.headers.etag! });
    expect(fresh.status).toBe(200);
    expect(fresh.headers.etag).toBe(w.etag);
    expect(fresh.body.toString('utf8')).toBe(changed);
  });

  it('answers HEAD with the headers only', async () => {
    const r = await request(server.base, '/feeds/city/en.ics', {}, 'HEAD');
    expect(r.status).toBe(200);
    expect(r.headers.etag).toBe(etag);
    expect(r.body.length).toBe(0);
  });

  it('404s a missing feed and a missing language with a plain-text message', async () => {
    const feed = await request(server.base, '/feeds/nope/en.ics');
    expect(feed.status).toBe(404);
    expect(feed.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(feed.body.toString()).toBe('feed "nope" not found\n');
    expect(hits.at(-1)).toEqual({ name: '(unknown)', lang: 'en', status: 404 });
    const lang = await request(server.base, '/feeds/city/de.ics');
    expect(lang.status).toBe(404);
    expect(lang.body.toString()).toBe('feed "city" has no "de" language\n');
    expect(hits.at(-1)).toEqual({ name: 'city', lang: 'de', status: 404 });
    const unknownLang = await request(server.base, '/feeds/city/xx.ics');
    expect(unknownLang.status).toBe(404);
    expect(hits.at(-1)).toEqual({ name: '(unknown)', lang: '(unknown)', status: 404 });
  });

  it('cannot be walked out of the feeds directory', async () => {
    for (const path of ['/feeds/../city.en.ics', '/feeds/..%2f..%2fetc/passwd.ics', '/feeds/%2e%2e/en.ics', '/feeds/City/en.ics', '/feeds/city/en.ics/..', '/feeds/city/../city/en.ics', '/feeds/city.en.ics', '/feeds/.city/en.ics']) {
      const r = await request(server.base, path);
      expect(r.status, path).toBe(404);
      expect(r.headers['content-type'], path).toBe('text/plain; charset=utf-8');
    }
  });

  it('leaves other paths to the caller, refuses other methods', async () => {
    expect((await request(server.base, '/healthz')).status).toBe(418);
    expect((await request(server.base, '/feedsx')).status).toBe(418);
    const post = await request(server.base, '/feeds/city/en.ics', {}, 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
  });

  it('lists feeds and languages with webcal, Google and Outlook subscribe links (HTML)', async () => {
    const r = await request(server.base, '/feeds/');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
    const html = r.body.toString();
    const host = server.base.replace('http://', '');
    const url = `${server.base}/feeds/city/en.ics`;
    const webcal = `webcal://${host}/feeds/city/en.ics`;
    expect(html).toContain(`href="${url}"`);
    expect(html).toContain(`href="${webcal}"`);
    expect(html).toContain(`href="https://calendar.google.com/calendar/r?cid=${encodeURIComponent(webcal)}"`);
    expect(html).toContain(`href="https://outlook.live.com/calendar/0/addfromweb?url=${encodeURIComponent(url)}&amp;name=city%20(en)"`);
    expect(html).toContain('/feeds/city/fr.ics');
    expect(html).toContain('/feeds/music/de.ics');
    expect((await request(server.base, '/feeds')).status).toBe(200);
  });

  it('regression: the feeds page\'s Google and Outlook columns had no header', async () => {
    const html = (await request(server.base, '/feeds/')).body.toString();
    const heads = [...(/<thead>(.*?)<\/thead>/s.exec(html)?.[1] ?? '').matchAll(/<th>(.*?)<\/th>/g)].map((m) => m[1]);
    const firstRow = /<tbody>\s*<tr>(.*?)<\/tr>/s.exec(html)?.[1] ?? '';
    // One header per cell, none empty, and the subscribe columns named after what they open.
    expect(heads).toHaveLength([...firstRow.matchAll(/<td>/g)].length);
    expect(heads.every((h) => h && h.trim() !== '')).toBe(true);
    expect(heads).toEqual(expect.arrayContaining(['Google', 'Outlook']));
  });

  it('lists feeds as JSON when asked, with the public URL when configured', async () => {
    const r = await request(pub.base, '/feeds/', { Accept: 'application/json' });
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    const { feeds } = JSON.parse(r.body.toString()) as { feeds: { name: string; lang: string; url: string; webcal: string; google: string; outlook: string }[] };
    expect(feeds.map((f) => `${f.name}/${f.lang}`)).toEqual(['city/en', 'city/fr', 'music/de']);
    expect(feeds[0]).toMatchObject({
      url: 'https://feeds.example.org/feeds/city/en.ics',
      webcal: 'webcal://feeds.example.org/feeds/city/en.ics',
      google: `https://calendar.google.com/calendar/r?cid=${encodeURIComponent('webcal://feeds.example.org/feeds/city/en.ics')}`,
      outlook: `https://outlook.live.com/calendar/0/addfromweb?url=${encodeURIComponent('https://feeds.example.org/feeds/city/en.ics')}&name=city%20(en)`,
    });
    const html = await request(pub.base, '/feeds/', { Accept: 'text/html,application/json;q=0.9' });
    expect(html.headers['content-type']).toBe('text/html; charset=utf-8');
  });

  it('lists nothing (not an error) when no feed was exported yet', async () => {
    const empty = await startServer({ dir: join(dir, 'missing') });
    try {
      const r = await request(empty.base, '/feeds/', { Accept: 'application/json' });
      expect(r.status).toBe(200);
      expect(JSON.parse(r.body.toString())).toEqual({ feeds: [] });
      expect((await request(empty.base, '/feeds/city/en.ics')).status).toBe(404);
    } finally {
      await empty.close();
    }
  });
});
