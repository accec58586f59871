import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CalendarClient, type EventCreate, type SiteConnection } from '../../src/api/index.ts';
import { ExportAbortedError, ExportParamsError, exportIcsText, runIcsExport, type ExportParams } from '../../src/export/index.ts';
import type { Language } from '../../src/model/languages.ts';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.ts';
import { checkStructure, localDay, parseEvents } from './support.ts';

/**
 * End to end against the sandbox site over loopback: events created through the client in two
 * languages, exported per language for a February 2030 window.
 */

const WINDOW = { from: new Date('2030-02-01T00:00:00Z'), to: new Date('2030-02-28T23:59:59Z') };

describe('ICS export from a site', () => {
  let sb: Sandbox;
  let conn: SiteConnection;
  let client: CalendarClient;
  let clock = new Date('2026-01-01T00:00:00Z');
  const dir = mkdtempSync(join(tmpdir(), 'calsync-export-'));
  const ids: Record<string, number> = {};

  const params = (over: Partial<ExportParams> = {}): ExportParams => ({
    name: 'city',
    connection: conn,
    siteKey: 'sandbox',
    languages: ['en', 'fr'],
    window: WINDOW,
    outDir: dir,
    ...over,
  });

  const uids = (text: string): string[] => [...parseEvents(text).keys()].sort();
  const uid = (key: string): string => `${ids[key]}@127.0.0.1:${sb.port}`;

  beforeAll(async () => {
    sb = await startSandbox({ port: 0, now: () => clock });
    conn = { restRoot: sb.url, namespace: sb.namespace, auth: { kind: 'basic', user: sb.user, password: sb.password } };
    client = new CalendarClient(conn);
    const venue = await client.venues.create({ venue: 'Kunsthalle', address: 'Museumstr. 1', city: 'Berlin', zip: '10117', country: 'Germany' });
    const org = await client.organizers.create({ organizer: 'Kulturamt', email: 'kultur@example.org' });
    const art = await client.categories.create({ name: 'Art', slug: 'art' });
    const music = await client.categories.create({ name: 'Music', slug: 'music' });
    const jazz = await client.categories.create({ name: 'Jazz', slug: 'jazz' });
    const make = async (key: string, body: EventCreate, lang: Language = 'en'): Promise<void> => {
      ids[key] = (await client.events.create(body, { lang })).id;
    };
    await make('underway', { title: 'Exhibition under way', start_date: '2030-01-10 10:00:00', end_date: '2030-02-05 18:00:00', timezone: 'Europe/Berlin', venue: venue.id, organizer: [org.id], categories: [art.id], description: '<p>Paintings &amp; prints.</p>' });
    await make('concert', { title: 'Concert', start_date: '2030-02-10 19:30:00', end_date: '2030-02-10 22:00:00', timezone: 'America/New_York', categories: [music.id], featured: true });
    await make('early', { title: 'Too early', start_date: '2030-01-01 10:00:00', end_date: '2030-01-02 10:00:00', timezone: 'Europe/Berlin' });
    await make('late', { title: 'Too late', start_date: '2030-03-10 10:00:00', end_date: '2030-03-10 12:00:00', timezone: 'Europe/Berlin' });
    await make('festival', { title: 'Festival running out', all_day: true, start_date: '2030-02-27 00:00:00', end_date: '2030-03-03 23:59:59', timezone: 'Europe/Berlin' });
    await make('hidden', { title: 'Hidden', start_date: '2030-02-12 10:00:00', end_date: '2030-02-12 12:00:00', timezone: 'Europe/Berlin', hide_from_listings: true });
    await make('draft', { title: 'Draft', start_date: '2030-02-13 10:00:00', end_date: '2030-02-13 12:00:00', timezone: 'Europe/Berlin', status: 'draft' });
    // Inside the widened site query, outside the exact window: only the local rule drops it.
    await make('edge', { title: 'Ends just before', start_date: '2030-01-31 20:00:00', end_date: '2030-01-31 23:00:00', timezone: 'UTC' });
    await make('jazz', { title: 'Jazz night', start_date: '2030-02-20 21:00:00', end_date: '2030-02-20 23:30:00', timezone: 'Europe/Berlin', categories: [jazz.id] });
    await make('fr1', { title: 'Concert du soir', start_date: '2030-02-11 20:00:00', end_date: '2030-02-11 22:00:00', timezone: 'Europe/Paris' }, 'fr');
    await make('fr2', { title: 'Exposition', start_date: '2030-01-20 10:00:00', end_date: '2030-02-02 18:00:00', timezone: 'Europe/Paris' }, 'fr');
    await make('fr3', { title: 'Trop tôt', start_date: '2030-01-05 10:00:00', end_date: '2030-01-05 12:00:00', timezone: 'Europe/Paris' }, 'fr');
  });

  afterAll(async () => {
    await client?.close();
    await sb?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes one feed per language with exactly that language’s events in the window', async () => {
    sb.resetStats();
    const result = await runIcsExport(params());
    expect(result.name).toBe('city');
    expect(result.files.map((f) => f.lang)).toEqual(['en', 'fr']);
    const [en, fr] = result.files;
    expect(en.path).toBe(join(dir, 'city.en.ics'));
    expect(fr.path).toBe(join(dir, 'city.fr.ics'));
    expect(en).toMatchObject({ events: 4, changed: true, skipped: [] });
    expect(fr).toMatchObject({ events: 2, changed: true, skipped: [] });
    // Nothing silently dropped: everything listed is written, outside the exact window, or skipped.
    for (const f of result.files) expect(f.read).toBe(f.events + f.outsideWindow + f.skipped.length);
    expect(en.outsideWindow).toBe(1); // "Ends just before": listed by the widened query, dropped by the exact rule

    const enText = readFileSync(en.path, 'utf8');
    const frText = readFileSync(fr.path, 'utf8');
    expect(Buffer.byteLength(enText)).toBe(en.bytes);
    checkStructure(enText);
    checkStructure(frText);
    expect(uids(enText)).toEqual(['underway', 'concert', 'festival', 'jazz'].map(uid).sort());
    expect(uids(frText)).toEqual(['fr1', 'fr2'].map(uid).sort());
    expect(enText).toContain('X-WR-CALNAME:city (en)');
    expect(frText).toContain('X-WR-CALNAME:city (fr)');

    // Venues, organizers and terms came embedded in the events: only event list pages were read.
    // Besides the preflight's one look at the site index (src/api/preflight.ts).
    expect(Object.keys(sb.stats().byRoute)).toEqual(['GET (site index)', 'GET /events']);
    expect(sb.stats().byRoute['GET (site index)']).toBe(1);
  });

  it('includes an event that started before the window and ends inside it; hidden, draft and outside events are not there', async () => {
    const parsed = parseEvents(readFileSync(join(dir, 'city.en.ics'), 'utf8'));
    const underway = parsed.get(uid('underway'))!;
    expect(underway.summary).toBe('Exhibition under way');
    expect((underway.start as Date).toISOString()).toBe('2030-01-10T09:00:00.000Z');
    expect((underway.start as Date & { tz?: string }).tz).toBe('Europe/Berlin');
    expect(underway.location).toBe('Kunsthalle, Museumstr. 1, Berlin, 10117, Germany');
    expect(underway.categories).toEqual(['Art']);
    expect(String(underway.description)).toBe('Paintings & prints.');
    const festival = parsed.get(uid('festival'))!;
    expect([localDay(festival.start as Date), localDay(festival.end as Date)]).toEqual(['2030-02-27', '2030-03-04']);
    const concert = parsed.get(uid('concert'))!;
    expect((concert.start as Date).toISOString()).toBe('2030-02-11T00:30:00.000Z');
    for (const key of ['early', 'late', 'hidden', 'draft', 'edge']) expect(parsed.has(uid(key)), key).toBe(false);
  });

  it('rewrites nothing when the site did not change (same bytes, ETag and mtime)', async () => {
    const before = ['en', 'fr'].map((l) => statSync(join(dir, `city.${l}.ics`)).mtimeMs);
    const first = await runIcsExport(params());
    const again = await runIcsExport(params());
    expect(again.files.map((f) => f.changed)).toEqual([false, false]);
    expect(again.files.map((f) => f.etag)).toEqual(first.files.map((f) => f.etag));
    expect(['en', 'fr'].map((l) => statSync(join(dir, `city.${l}.ics`)).mtimeMs)).toEqual(before);
  });

  it('keeps the UID and raises SEQUENCE when an event is rescheduled; only that language’s file changes', async () => {
    const before = await runIcsExport(params());
    const seqOf = (text: string, id: string): number => Number(new RegExp(`UID:${id.replace('.', '\\.')}\\r\\nSEQUENCE:(\\d+)`).exec(text)![1]);
    const oldSeq = seqOf(readFileSync(join(dir, 'city.en.ics'), 'utf8'), uid('concert'));
    clock = new Date(clock.getTime() + 3_600_000);
    await client.events.update(ids.concert, { title: 'Concert (moved)', start_date: '2030-02-12 19:30:00', end_date: '2030-02-12 22:00:00', timezone: 'America/New_York', featured: true });
    const after = await runIcsExport(params());
    expect(after.files.map((f) => f.changed)).toEqual([true, false]);
    expect(after.files[0].etag).not.toBe(before.files[0].etag);
    const text = readFileSync(join(dir, 'city.en.ics'), 'utf8');
    const moved = parseEvents(text).get(uid('concert'))!;
    expect(moved.summary).toBe('Concert (moved)');
    expect((moved.start as Date).toISOString()).toBe('2030-02-13T00:30:00.000Z');
    expect(seqOf(text, uid('concert'))).toBe(oldSeq + 3600);
  });

  it('passes the list filters through to the site', async () => {
    const text = (filters: ExportParams['filters']) => exportIcsText({ ...params({ filters }), lang: 'en' });
    expect(uids(await text({ categories: ['jazz'] }))).toEqual([uid('jazz')]);
    expect(uids(await text({ featured: true }))).toEqual([uid('concert')]);
    expect(uids(await text({ search: 'exhibition' }))).toEqual([uid('underway')]);
    expect(uids(await text({ status: 'draft' }))).toEqual([uid('draft')]);
  });

  it('refuses bad parameters and honours an abort, writing nothing', async () => {
    await expect(runIcsExport(params({ name: 'Bad/Name' }))).rejects.toThrow(ExportParamsError);
    await expect(runIcsExport(params({ window: { from: WINDOW.to, to: WINDOW.from } }))).rejects.toThrow(/window/);
    await expect(runIcsExport(params({ languages: [] }))).rejects.toThrow(ExportParamsError);
    await expect(runIcsExport(params({ refreshInterval: 'hourly' }))).rejects.toThrow(/refreshInterval/);
    const ac = new AbortController();
    ac.abort();
    await expect(runIcsExport(params({ name: 'aborted' }), { signal: ac.signal })).rejects.toThrow(ExportAbortedError);
    expect(() => statSync(join(dir, 'aborted.en.ics'))).toThrow();
  });
});

describe('ICS export paging', () => {
  it('reads every page (50 per page, the rest concurrently) and sorts by start then id', async () => {
    const sb = await startSandbox({ port: 0 });
    const conn: SiteConnection = { restRoot: sb.url, namespace: sb.namespace, auth: { kind: 'basic', user: sb.user, password: sb.password } };
    const client = new CalendarClient(conn);
    const dir = mkdtempSync(join(tmpdir(), 'calsync-paging-'));
    try {
      const n = 130;
      // Reverse creation order so ids do not follow start times; pairs share a start (id breaks the tie).
      const created: number[] = [];
      for (let i = 0; i < n; i += 10) {
        const batch = await Promise.all(
          Array.from({ length: Math.min(10, n - i) }, (_, k) => {
            const j = n - 1 - (i + k);
            const day = String(1 + Math.floor(j / 10)).padStart(2, '0');
            const hour = String(8 + Math.floor((j % 10) / 2)).padStart(2, '0');
            return client.events.create({ title: `Event ${j}`, start_date: `2031-05-${day} ${hour}:00:00`, end_date: `2031-05-${day} ${hour}:30:00`, timezone: 'Europe/Rome' });
          }),
        );
        created.push(...batch.map((e) => e.id));
      }
      sb.resetStats();
      const progress: { phase: string; done: number; total?: number }[] = [];
      const result = await runIcsExport(
        { name: 'paging', connection: conn, siteKey: 'sb', languages: ['en'], window: { from: new Date('2031-05-01T00:00:00Z'), to: new Date('2031-05-31T00:00:00Z') }, outDir: dir, concurrency: 3 },
        { onProgress: (p) => progress.push(p) },
      );
      expect(result.files[0].events).toBe(n);
      expect(sb.stats().byRoute['GET /events']).toBe(Math.ceil(n / 50));
      expect(progress.at(-1)).toEqual({ phase: 'write en', done: n, total: n });
      expect(progress.some((p) => p.phase === 'fetch en' && p.total === n)).toBe(true);
      const text = readFileSync(result.files[0].path, 'utf8');
      const order = [...text.matchAll(/^UID:(\d+)@/gm)].map((m) => Number(m[1]));
      expect(new Set(order)).toEqual(new Set(created));
      const parsed = parseEvents(text);
      const starts = order.map((id) => (parsed.get(`${id}@127.0.0.1:${sb.port}`)!.start as Date).getTime());
      for (let i = 1; i < order.length; i++) {
        expect(starts[i] > starts[i - 1] || (starts[i] === starts[i - 1] && order[i] > order[i - 1])).toBe(true);
      }
    } finally {
      await client.close();
      await sb.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
