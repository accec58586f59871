import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';
import { open, readdir, stat, type FileHandle } from 'node:fs/promises';
import type http from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { createGzip, gzip as gzipCb } from 'node:zlib';
import { LANGUAGES } from '../model/languages.ts';
import { etagOf, FEED_NAME, feedFileName, isLanguage, parseFeedFileName } from './artifacts.ts';

/**
 * `GET /feeds/<name>/<lang>.ics` and the `GET /feeds/` index, for calendar apps that subscribe.
 *
 * - Paths are matched against `[a-z0-9-]+` names and the known languages before any file is
 *   touched, and nothing is percent-decoded, so no request can leave the feeds directory.
 * - Validators: a strong ETag (SHA-256 of the bytes, the same as the export reports) and
 *   Last-Modified (the file's mtime, which only moves when the bytes change: artifacts.ts).
 *   `If-None-Match` wins over `If-Modified-Since` (RFC 9110 §13.2.2); either gives a 304.
 * - gzip when Accept-Encoding allows it; the gzip variant has its own ETag (`"<hash>-gzip"`, a
 *   strong validator must differ per content coding) and both forms match If-None-Match.
 * - Files are opened once and read through that descriptor, so a rename landing mid-request
 *   cannot mix two versions. Up to `cacheBytes` per file, bytes and their gzip are kept in memory
 *   until the file changes (polling apps ask every few minutes); larger files are streamed.
 * - `onHit` labels: a feed name only when that feed exists on disk, else `(unknown)`, so random
 *   404 paths cannot blow up a metrics label set.
 */

export interface FeedHandlerOptions {
  dir: string;
  /** Base URL subscribers reach this server at (`https://feeds.example.org`); default: from the Host header. */
  publicUrl?: string;
  onHit?: (info: { name: string; lang: string; status: number }) => void;
  /** Cache-Control max-age of feed files (default 300 s). */
  maxAgeSeconds?: number;
  /** Files up to this size are cached in memory with their gzip (default 16 MiB). */
  cacheBytes?: number;
}

export type FeedHandler = (req: http.IncomingMessage, res: http.ServerResponse) => Promise<boolean>;

const gzip = promisify(gzipCb);
const UNKNOWN = '(unknown)';

interface CachedFile {
  identity: string;
  etag: string;
  mtimeMs: number;
  size: number;
  raw?: Buffer;
  gz?: Buffer;
}

/** q-values of a header like Accept or Accept-Encoding, lower-cased tokens. */
function qualities(header: string | undefined): Map<string, number> {
  const out = new Map<string, number>();
  for (const part of (header ?? '').split(',')) {
    const [token, ...params] = part.trim().split(';');
    if (!token) continue;
    let q = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p);
      if (m) q = Number(m[1]);
    }
    out.set(token.trim().toLowerCase(), Number.isFinite(q) ? q : 0);
  }
  return out;
}

function acceptsGzip(req: http.IncomingMessage): boolean {
  const q = qualities(req.headers['accept-encoding'] as string | undefined);
  const explicit = q.get('gzip') ?? q.get('x-gzip');
  if (explicit !== undefined) return explicit > 0;
  return (q.get('*') ?? 0) > 0;
}

function wantsJson(req: http.IncomingMessage): boolean {
  const q = qualities(req.headers.accept);
  const json = q.get('application/json') ?? 0;
  const html = q.get('text/html') ?? 0;
  return json > 0 && json >= html;
}

/** The opaque tags of If-None-Match; `*` kept as is. */
function etagList(header: string | undefined): string[] {
  if (!header) return [];
  return header.split(',').map((t) => t.trim().replace(/^W\//, '')).filter(Boolean);
}

function text(res: http.ServerResponse, req: http.IncomingMessage, status: number, body: string, headers: Record<string, string> = {}): void {
  const buf = Buffer.from(body, 'utf8');
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': String(buf.length), 'X-Content-Type-Options': 'nosniff', ...headers });
  res.end(req.method === 'HEAD' ? undefined : buf);
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Base URL for links: the configured one, else the request's Host (validated), over http. */
function baseUrl(req: http.IncomingMessage, publicUrl: string | undefined): string {
  if (publicUrl) return publicUrl.replace(/\/+$/, '');
  const host = req.headers.host ?? '';
  const ok = /^[A-Za-z0-9.-]+(?::\d{1,5})?$/.test(host) || /^\[[0-9A-Fa-f:.]+\](?::\d{1,5})?$/.test(host);
  return `http://${ok ? host : 'localhost'}`;
}

export interface FeedLinks {
  name: string;
  lang: string;
  /** The feed over http(s). */
  url: string;
  /** Same URL with the webcal scheme: calendar apps offer to subscribe. */
  webcal: string;
  /** Google Calendar's add-by-URL page. */
  google: string;
  /** Outlook.com's add-from-web page. */
  outlook: string;
  bytes: number;
  lastModified: string;
}

export function feedLinks(base: string, name: string, lang: string): Omit<FeedLinks, 'bytes' | 'lastModified'> {
  const url = `${base}/feeds/${name}/${lang}.ics`;
  const webcal = url.replace(/^https?:\/\//, 'webcal://');
  return {
    name,
    lang,
    url,
    webcal,
    google: `https://calendar.google.com/calendar/r?cid=${encodeURIComponent(webcal)}`,
    outlook: `https://outlook.live.com/calendar/0/addfromweb?url=${encodeURIComponent(url)}&name=${encodeURIComponent(`${name} (${lang})`)}`,
  };
}

async function listFeeds(dir: string, base: string): Promise<FeedLinks[]> {
  let files: string[];
  try {
    files = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const out: FeedLinks[] = [];
  for (const file of files.sort()) {
    const parsed = parseFeedFileName(file);
    if (!parsed) continue;
    const st = await stat(join(dir, file)).catch(() => undefined);
    if (!st?.isFile()) continue;
    out.push({ ...feedLinks(base, parsed.name, parsed.lang), bytes: st.size, lastModified: st.mtime.toUTCString() });
  }
  // By name, then in the order languages are configured.
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : LANGUAGES.indexOf(a.lang as never) - LANGUAGES.indexOf(b.lang as never)));
}

function listingHtml(feeds: FeedLinks[]): string {
  const rows = feeds.map((f) => {
    const a = (href: string, label: string): string => `<a href="${escapeHtml(href)}">${label}</a>`;
    return `<tr><td>${escapeHtml(f.name)}</td><td>${escapeHtml(f.lang)}</td><td>${a(f.url, 'ICS')}</td><td>${a(f.webcal, 'Subscribe (webcal)')}</td><td>${a(f.google, 'Google Calendar')}</td><td>${a(f.outlook, 'Outlook')}</td><td>${escapeHtml(f.lastModified)}</td></tr>`;
  });
  const body = feeds.length
    ? `<table><thead><tr><th>feed</th><th>language</th><th>file</th><th>calendar app</th><th>Google</th><th>Outlook</th><th>updated</th></tr></thead><tbody>\n${rows.join('\n')}\n</tbody></table>`
    : '<p>No feeds have been exported yet.</p>';
  return `<!doctype html>\n<html><head><meta charset="utf-8"><title>calsync feeds</title><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"></head>\n<body><h1>Calendar feeds</h1>\n${body}\n</body></html>\n`;
}

async function feedExists(dir: string, name: string): Promise<boolean> {
  for (const lang of LANGUAGES) {
    const st = await stat(join(dir, feedFileName(name, lang))).catch(() => undefined);
    if (st?.isFile()) return true;
  }
  return false;
}

/** What every request of one handler shares: options, the in-memory file cache and the metrics hook. */
interface Served {
  opts: FeedHandlerOptions;
  maxAge: number;
  cacheBytes: number;
  cache: Map<string, CachedFile>;
  hit: (name: string, lang: string, status: number) => void;
}

/** Validators (and, up to `cacheBytes`, the bytes) of an open feed file; reused while the file is unchanged. */
async function describeFile(sv: Served, path: string, fh: FileHandle, st: Stats): Promise<CachedFile> {
  const identity = `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
  const known = sv.cache.get(path);
  if (known?.identity === identity) return known;
  let entry: CachedFile;
  if (st.size <= sv.cacheBytes) {
    const raw = await fh.readFile();
    entry = { identity, etag: etagOf(createHash('sha256').update(raw).digest()), mtimeMs: st.mtimeMs, size: raw.length, raw };
  } else {
    const h = createHash('sha256');
    for await (const chunk of fh.createReadStream({ start: 0, autoClose: false })) h.update(chunk as Buffer);
    entry = { identity, etag: etagOf(h.digest()), mtimeMs: st.mtimeMs, size: st.size };
  }
  sv.cache.set(path, entry);
  return entry;
}

/** The feed's file opened for reading, or undefined once a 404 has been sent (bad name, no such feed or language). */
async function openFeed(sv: Served, req: http.IncomingMessage, res: http.ServerResponse, name: string, lang: string): Promise<{ fh: FileHandle; path: string } | undefined> {
  if (!FEED_NAME.test(name) || !isLanguage(lang)) {
    sv.hit(UNKNOWN, isLanguage(lang) ? lang : UNKNOWN, 404);
    text(res, req, 404, `no feed at ${FEED_NAME.test(name) ? `/feeds/${name}/` : 'this address'}\n`);
    return undefined;
  }
  const path = join(sv.opts.dir, feedFileName(name, lang));
  try {
    return { fh: await open(path, 'r'), path };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    sv.cache.delete(path);
    const exists = await feedExists(sv.opts.dir, name);
    sv.hit(exists ? name : UNKNOWN, lang, 404);
    text(res, req, 404, exists ? `feed "${name}" has no "${lang}" language\n` : `feed "${name}" not found\n`);
    return undefined;
  }
}

function feedHeaders(file: CachedFile, gz: boolean, name: string, lang: string, maxAge: number): Record<string, string> {
  return {
    'Content-Type': 'text/calendar; charset=utf-8',
    'Cache-Control': `public, max-age=${maxAge}`,
    ETag: gz ? file.etag.replace(/"$/, '-gzip"') : file.etag,
    'Last-Modified': new Date(file.mtimeMs).toUTCString(),
    Vary: 'Accept-Encoding',
    'X-Content-Type-Options': 'nosniff',
    'Content-Disposition': `inline; filename="${name}.${lang}.ics"`,
  };
}

/** If-None-Match (either content coding's tag) wins over If-Modified-Since (RFC 9110 §13.2.2). */
function isNotModified(req: http.IncomingMessage, file: CachedFile): boolean {
  const inm = etagList(req.headers['if-none-match'] as string | undefined);
  if (inm.length) {
    const gzTag = file.etag.replace(/"$/, '-gzip"');
    return inm.some((t) => t === '*' || t === file.etag || t === gzTag);
  }
  const ims = Date.parse((req.headers['if-modified-since'] as string | undefined) ?? '');
  // HTTP dates have whole seconds; the mtime has more.
  return Number.isFinite(ims) && Math.floor(file.mtimeMs / 1000) * 1000 <= ims;
}

/** A 200: cached bytes (and their gzip, made once), or a large file streamed from the described descriptor. */
async function sendFeed(req: http.IncomingMessage, res: http.ServerResponse, fh: FileHandle, file: CachedFile, gz: boolean, headers: Record<string, string>): Promise<void> {
  if (file.raw) {
    let body = file.raw;
    if (gz) {
      file.gz ??= await gzip(file.raw);
      body = file.gz;
      headers['Content-Encoding'] = 'gzip';
    }
    headers['Content-Length'] = String(body.length);
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : body);
    return;
  }
  if (gz) headers['Content-Encoding'] = 'gzip';
  else headers['Content-Length'] = String(file.size);
  res.writeHead(200, headers);
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  const src = fh.createReadStream({ start: 0, autoClose: false });
  try {
    await (gz ? pipeline(src, createGzip(), res) : pipeline(src, res));
  } catch {
    // The status line is out: a subscriber that hung up (or a read error) can only end the
    // connection; rethrowing would make the caller try to send a 500 on top.
    res.destroy();
  }
}

async function serveFeed(sv: Served, req: http.IncomingMessage, res: http.ServerResponse, name: string, lang: string): Promise<void> {
  const opened = await openFeed(sv, req, res, name, lang);
  if (!opened) return;
  const { fh, path } = opened;
  try {
    const st = await fh.stat();
    if (!st.isFile()) {
      sv.hit(UNKNOWN, lang, 404);
      return text(res, req, 404, `feed "${name}" not found\n`);
    }
    const file = await describeFile(sv, path, fh, st);
    const gz = acceptsGzip(req);
    const headers = feedHeaders(file, gz, name, lang, sv.maxAge);
    if (isNotModified(req, file)) {
      sv.hit(name, lang, 304);
      res.writeHead(304, headers);
      res.end();
      return;
    }
    sv.hit(name, lang, 200);
    await sendFeed(req, res, fh, file, gz, headers);
  } finally {
    await fh.close();
  }
}

/** `GET /feeds/`: the feeds on disk with subscribe links, as HTML or (Accept: application/json) JSON. */
async function serveListing(req: http.IncomingMessage, res: http.ServerResponse, opts: FeedHandlerOptions): Promise<void> {
  const feeds = await listFeeds(opts.dir, baseUrl(req, opts.publicUrl));
  const json = wantsJson(req);
  const body = Buffer.from(json ? `${JSON.stringify({ feeds }, null, 2)}\n` : listingHtml(feeds), 'utf8');
  res.writeHead(200, {
    'Content-Type': json ? 'application/json; charset=utf-8' : 'text/html; charset=utf-8',
    'Content-Length': String(body.length),
    'Cache-Control': 'no-cache',
    Vary: 'Accept',
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

export function createFeedHandler(opts: FeedHandlerOptions): FeedHandler {
  const sv: Served = {
    opts,
    maxAge: opts.maxAgeSeconds ?? 300,
    cacheBytes: opts.cacheBytes ?? 16 * 1024 * 1024,
    cache: new Map(),
    hit: (name, lang, status) => {
      try {
        opts.onHit?.({ name, lang, status });
      } catch {
        // a metrics hook must not break serving
      }
    },
  };
  return async (req, res) => {
    const pathname = (req.url ?? '/').split('?')[0];
    if (pathname !== '/feeds' && !pathname.startsWith('/feeds/')) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      text(res, req, 405, 'method not allowed\n', { Allow: 'GET, HEAD' });
      return true;
    }
    if (pathname === '/feeds' || pathname === '/feeds/') {
      await serveListing(req, res, opts);
      return true;
    }
    const m = /^\/feeds\/([^/]+)\/([^/]+)\.ics$/.exec(pathname);
    if (!m) {
      sv.hit(UNKNOWN, UNKNOWN, 404);
      text(res, req, 404, 'not found: feeds live at /feeds/<name>/<lang>.ics\n');
      return true;
    }
    await serveFeed(sv, req, res, m[1], m[2]);
    return true;
  };
}
