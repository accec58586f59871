import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchError, fetchSource, mapWebcal, resolveLocation } from '../../src/sources/fetch/index.ts';
import { redactText } from '../../src/sources/fetch/location.ts';
import { rejection, within } from './support.ts';

describe('location mapping', () => {
  it.each([
    ['webcal://example.org/cal.ics', 'https://example.org/cal.ics'],
    ['WEBCAL://example.org/cal.ics?x=1', 'https://example.org/cal.ics?x=1'],
    ['webcals://example.org/cal.ics', 'https://example.org/cal.ics'],
    ['https://example.org/cal.ics', 'https://example.org/cal.ics'],
    ['http://example.org/cal.ics', 'http://example.org/cal.ics'],
  ])('mapWebcal(%s) = %s', (input, expected) => {
    expect(mapWebcal(input)).toBe(expected);
  });

  it('maps webcal to an https URL with a normalized host', () => {
    const t = resolveLocation('webcal://user:pw@0x7f.1:8443/a b.ics', false);
    expect(t.kind).toBe('url');
    if (t.kind !== 'url') return;
    expect(t.url.protocol).toBe('https:');
    expect(t.url.hostname).toBe('127.0.0.1'); // normalized, so the guard sees the real address
    expect(t.url.pathname).toBe('/a%20b.ics');
  });

  it.each(['ftp://example.org/cal.ics', 'gopher://127.0.0.1/', 'javascript:alert(1)', 'data:text/calendar,BEGIN'])(
    'refuses %s as unsupported-scheme',
    async (location) => {
      const err = await rejection(fetchSource(location));
      expect(err).toBeInstanceOf(FetchError);
      expect(err.code).toBe('unsupported-scheme');
    },
  );

  it('refuses unparseable URLs as bad-url without leaking credentials', async () => {
    const err = await rejection(fetchSource('http://user:secret@[::1/feed.ics'));
    expect(err.code).toBe('bad-url');
    expect(`${err.url} ${err.message}`).not.toMatch(/secret|user/);
    expect((await rejection(fetchSource('   '))).code).toBe('bad-url');
    expect(redactText('https://a:b@host/x')).toBe('https://host/x');
  });
});

describe('local files', () => {
  let dir: string;
  let feed: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'calsync-fetch-'));
    feed = path.join(dir, 'events.ics');
    await writeFile(feed, 'BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n');
    await writeFile(path.join(dir, 'big.csv'), Buffer.alloc(2048, 0x41));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it.each([
    ['a path', () => feed],
    ['a file: URL', () => pathToFileURL(feed).href],
    ['a relative path', () => path.relative(process.cwd(), feed)],
  ])('refuses %s unless allowFiles', async (_label, location) => {
    const err = await rejection(fetchSource(location()));
    expect(err).toBeInstanceOf(FetchError);
    expect(err.code).toBe('file-not-allowed');
    expect(err.message).toMatch(/command line/);
  });

  it('suggests https:// for a scheme-less web address', async () => {
    const err = await rejection(fetchSource('example.org/feed.ics'));
    expect(err.code).toBe('file-not-allowed');
    expect(err.message).toMatch(/start it with https:\/\//);
  });

  it('reads a file when allowed, from a path or a file: URL', async () => {
    const a = await fetchSource(feed, { allowFiles: true });
    expect(a.body?.toString()).toBe('BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n');
    expect(a.url).toBe(pathToFileURL(feed).href);
    const b = await fetchSource(pathToFileURL(feed).href, { allowFiles: true });
    expect(b.bytes).toBe(a.bytes);
  });

  it('reports a file that is not modified since the last run', async () => {
    const first = await fetchSource(feed, { allowFiles: true });
    const again = await fetchSource(feed, { allowFiles: true, conditional: { etag: first.etag, lastModified: first.lastModified } });
    expect(again.notModified).toBe(true);
    expect(again.body).toBeUndefined();
    await writeFile(feed, 'BEGIN:VCALENDAR\r\nX-CHANGED:1\r\nEND:VCALENDAR\r\n');
    const changed = await fetchSource(feed, { allowFiles: true, conditional: { etag: first.etag } });
    expect(changed.notModified).toBe(false);
    expect(changed.body?.toString()).toContain('X-CHANGED');
  });

  it('applies the byte cap to files', async () => {
    const err = await rejection(fetchSource(path.join(dir, 'big.csv'), { allowFiles: true, maxBytes: 1024 }));
    expect(err.code).toBe('too-large');
    expect((await fetchSource(path.join(dir, 'big.csv'), { allowFiles: true, maxBytes: 2048 })).bytes).toBe(2048);
  });

  it('applies the byte cap to bytes read, not the size the file system reports', async () => {
    // /dev/zero reports size 0 and never ends.
    const err = await rejection(within(10_000, fetchSource('/dev/zero', { allowFiles: true, maxBytes: 64 * 1024, timeouts: { totalMs: 5000 } })));
    expect(err.code).toBe('too-large');
  });

  it('reports missing files and directories as file-error', async () => {
    expect((await rejection(fetchSource(path.join(dir, 'missing.ics'), { allowFiles: true }))).code).toBe('file-error');
    const dirErr = await rejection(fetchSource(dir, { allowFiles: true }));
    expect(dirErr.code).toBe('file-error');
    expect(dirErr.message).toMatch(/directory/);
  });
});
