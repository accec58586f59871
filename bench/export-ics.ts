/**
 * ICS export: 10k events in the window of a sandbox site.
 *
 * - `export.render.10k`: rendering alone (records → sorted feed text), from records read once
 *   from the site, so shapes are real (venue, organizers, terms, HTML descriptions, several zones).
 * - `export.total.10k.latency0` / `.latency50`: a whole `runIcsExport` (page 1, then the other
 *   199 pages 4 at a time, render, atomic write) against the sandbox with 0 and 50 ms per request.
 *   The 50 ms scenario carries as reference the time a serial page walk would spend waiting
 *   (pages × 50 ms); ratio < 1 is what fetching pages concurrently buys.
 * - `export.peak-rss`: this process's peak RSS (the sandbox with its 10k events lives here too).
 * - `export.memory.50k.*`: a child process renders 50k synthetic events the way a run does
 *   (pages of 50 parsed from JSON, each event rendered as it arrives and only its text kept) and
 *   writes the file. `retained-heap` (heap after a full GC, minus the start) against the file size
 *   shows what the run holds is the output text; `peak-rss` adds the runtime (`baseline-rss`) and
 *   garbage V8 has not handed back yet.
 *
 * Run alone: `npx node bench/export-ics.ts [--json] [--events=10000]`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CalendarClient, type EventCreate, type EventRecord, type SiteConnection } from '../src/api/index.ts';
import { compareRendered, icsParts, renderEvent, runIcsExport, writeArtifact, type RenderedEvent } from '../src/export/index.ts';
import { startSandbox } from '../src/sandbox/index.ts';

export type { Scenario as BenchScenario } from './lib.ts';
import type { Scenario as BenchScenario } from './lib.ts';

export interface ExportBenchOptions {
  /** Events in the window (default 10 000). */
  events?: number;
  /** Events of the memory child (default 50 000; 0 skips it). */
  memoryEvents?: number;
  /** Seeding concurrency (default 32). */
  seedConcurrency?: number;
}

const ZONES = ['Europe/Berlin', 'America/New_York', 'Asia/Tokyo', 'Europe/Paris', 'UTC'];
const WINDOW = { from: new Date('2032-01-01T00:00:00Z'), to: new Date('2032-12-31T23:59:59Z') };
const DESCRIPTION =
  '<p>An evening of <strong>chamber music</strong> with works by Bach, Brahms and Schumann; doors open 30 minutes before.</p>' +
  '<ul><li>Tickets at the door</li><li>Reduced rates for students</li></ul><p>More at <a href="https://tickets.example.org/">the box office</a>.</p>';

const round = (n: number, d = 0): number => Math.round(n * 10 ** d) / 10 ** d;

function eventBody(i: number, ids: { venues: number[]; organizers: number[]; categories: number[] }): EventCreate {
  // 2 January to 30 December: the sandbox, a UTC site, lists by UTC dates as TEC does, so an event
  // on the window's first or last local day in a zone away from UTC falls outside the year's listing.
  const day = 1 + (i % 363);
  const date = new Date(Date.UTC(2032, 0, 1) + day * 86_400_000).toISOString().slice(0, 10);
  const hour = String(8 + (i % 12)).padStart(2, '0');
  const allDay = i % 10 === 0;
  return {
    title: `Bench event ${i} &amp; friends`,
    // Unique per event: the renderer caches repeated descriptions (recurring series), which would flatter it.
    description: DESCRIPTION.replace('evening', `evening (#${i})`),
    status: 'publish',
    timezone: ZONES[i % ZONES.length],
    all_day: allDay,
    start_date: allDay ? `${date} 00:00:00` : `${date} ${hour}:00:00`,
    end_date: allDay ? `${date} 23:59:59` : `${date} ${hour}:45:00`,
    venue: ids.venues[i % ids.venues.length],
    organizer: [ids.organizers[i % ids.organizers.length]],
    categories: [ids.categories[i % ids.categories.length]],
  };
}

/** Seeds `n` events concurrently through the client (the sandbox has no bulk route). */
async function seed(client: CalendarClient, n: number, concurrency: number): Promise<void> {
  const venues: number[] = [];
  const organizers: number[] = [];
  const categories: number[] = [];
  for (let i = 0; i < 8; i++) {
    venues.push((await client.venues.create({ venue: `Hall ${i}`, address: `${i} Main St`, city: 'Springfield', zip: `1000${i}`, country: 'United States' })).id);
    organizers.push((await client.organizers.create({ organizer: `Organizer ${i}`, email: `org${i}@example.org` })).id);
    categories.push((await client.categories.create({ name: `Category ${i}` })).id);
  }
  const ids = { venues, organizers, categories };
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await client.events.create(eventBody(next++, ids));
    }),
  );
}

/** The memory child: 50k synthetic events through the run's render path, then the file write. */
async function memoryChild(n: number, dir: string): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
  gc();
  const baseline = process.memoryUsage();
  const template = (i: number): EventRecord => {
    const day = i % 365;
    const date = new Date(Date.UTC(2032, 0, 1) + day * 86_400_000).toISOString().slice(0, 10);
    const hour = String(8 + (i % 12)).padStart(2, '0');
    return {
      id: 100_000 + i,
      status: 'publish',
      title: `Bench event ${i} &amp; friends`,
      slug: `bench-event-${i}`,
      description: DESCRIPTION.replace('evening', `evening (#${i})`),
      excerpt: '<p>Chamber music.</p>',
      url: `https://events.example.org/event/bench-event-${i}/`,
      date_utc: '2031-06-01 10:00:00',
      modified_utc: '2031-06-02 10:00:00',
      all_day: false,
      start_date: `${date} ${hour}:00:00`,
      end_date: `${date} ${hour}:45:00`,
      timezone: ZONES[i % ZONES.length],
      image: { url: `https://events.example.org/wp-content/uploads/poster-${i % 50}.jpg`, id: 9, extension: 'jpg', width: 1600, height: 900 },
      categories: [{ id: 7, name: 'Music', slug: 'music', taxonomy: 'tribe_events_cat', description: '', parent: 0, count: 12, filter: 'raw' }],
      tags: [],
      venue: { id: 55, venue: 'Town Hall', address: '1 Main St', city: 'Springfield', zip: '12345', country: 'United States', geo_lat: 42.1, geo_lng: -72.5, description: '<p>Our town hall.</p>' },
      organizer: [{ id: 61, organizer: 'Arts Council', email: 'info@example.org', phone: '+1 555 0100', website: 'https://arts.example.org' }],
    } as EventRecord;
  };
  const started = performance.now();
  const kept: RenderedEvent[] = [];
  for (let page = 0; page * 50 < n; page++) {
    // A page arrives as JSON and is parsed into fresh objects, as from the site; only text is kept.
    const json = JSON.stringify(Array.from({ length: Math.min(50, n - page * 50) }, (_, k) => template(page * 50 + k)));
    for (const rec of JSON.parse(json) as EventRecord[]) kept.push(renderEvent(rec, { siteHost: 'events.example.org' }));
  }
  gc();
  // What the run holds once garbage is gone: the rendered text, about the size of the file.
  const retained = process.memoryUsage().heapUsed - baseline.heapUsed;
  kept.sort(compareRendered);
  const written = await writeArtifact(dir, 'memory.en.ics', icsParts({ name: 'memory', lang: 'en', siteHost: 'events.example.org' }, kept));
  const ms = performance.now() - started;
  const peak = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(JSON.stringify({ events: kept.length, bytes: written.bytes, peakRss: peak, baselineRss: baseline.rss, retained, ms }));
}

export async function runExportBench(opts: ExportBenchOptions = {}): Promise<{ scenarios: BenchScenario[] }> {
  const n = opts.events ?? 10_000;
  const memoryEvents = opts.memoryEvents ?? 50_000;
  const scenarios: BenchScenario[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'calsync-bench-export-'));
  const sb = await startSandbox({ port: 0 });
  try {
    const conn: SiteConnection = { restRoot: sb.url, namespace: sb.namespace, auth: { kind: 'basic', user: sb.user, password: sb.password }, connections: 32 };
    const seeder = new CalendarClient(conn);
    await seed(seeder, n, opts.seedConcurrency ?? 32);

    // Records read once, for the render-only figure.
    const records: EventRecord[] = [];
    for await (const rec of seeder.events.iterate({ start_date: '2032-01-01', end_date: '2032-12-31', status: 'publish', per_page: 50 }, { concurrency: 8 })) records.push(rec);
    await seeder.close();
    if (records.length !== n) throw new Error(`seeded ${n} events, read back ${records.length}`);

    let best = Infinity;
    for (let r = 0; r < 3; r++) {
      const t = performance.now();
      const rendered = records.map((rec) => renderEvent(rec, { siteHost: 'bench.example.org' })).sort(compareRendered);
      const text = [...icsParts({ name: 'bench', lang: 'en', siteHost: 'bench.example.org' }, rendered)].join('');
      if (!text.endsWith('END:VCALENDAR\r\n')) throw new Error('render produced no calendar');
      best = Math.min(best, performance.now() - t);
    }
    scenarios.push({ name: 'export.render.10k', figure: round(best), unit: 'ms' });
    scenarios.push({ name: 'export.render.per-event', figure: round((best * 1000) / n), unit: 'µs/event' });
    records.length = 0;

    const params = { name: 'bench', connection: { ...conn, connections: 8 }, siteKey: 'bench', languages: ['en' as const], window: WINDOW, outDir: dir };
    const zero = await runIcsExport(params);
    if (zero.files[0].events !== n) throw new Error(`exported ${zero.files[0].events} of ${n} events`);
    scenarios.push({ name: 'export.total.10k.latency0', figure: zero.durationMs, unit: 'ms' });

    sb.setFaults({ latencyMs: 50 });
    const slow = await runIcsExport({ ...params, name: 'bench-slow' });
    const pages = Math.ceil(n / 50);
    scenarios.push({
      name: 'export.total.10k.latency50',
      figure: slow.durationMs,
      unit: 'ms',
      reference: pages * 50,
      ratio: round(slow.durationMs / (pages * 50), 2),
    });
    scenarios.push({ name: 'export.file.10k', figure: round(slow.files[0].bytes / 1048576, 1), unit: 'MiB' });
    scenarios.push({ name: 'export.peak-rss', figure: round((process.resourceUsage().maxRSS * 1024) / 1048576), unit: 'MiB' });
  } finally {
    await sb.close();
  }

  if (memoryEvents > 0) {
    const child = spawnSync(process.execPath, ['--expose-gc', import.meta.filename, `--memory-child=${memoryEvents}`, `--dir=${dir}`], { encoding: 'utf8', maxBuffer: 1 << 20, timeout: 120_000 });
    if (child.status !== 0) throw new Error(`memory child failed: ${child.stderr || child.error}`);
    const m = JSON.parse(child.stdout) as { events: number; bytes: number; peakRss: number; baselineRss: number; retained: number; ms: number };
    const mib = (b: number): number => round(b / 1048576);
    scenarios.push({ name: 'export.memory.50k.file', figure: mib(m.bytes), unit: 'MiB' });
    scenarios.push({ name: 'export.memory.50k.retained-heap', figure: mib(m.retained), unit: 'MiB', reference: mib(m.bytes), ratio: round(m.retained / m.bytes, 2) });
    scenarios.push({ name: 'export.memory.50k.baseline-rss', figure: mib(m.baselineRss), unit: 'MiB' });
    scenarios.push({ name: 'export.memory.50k.peak-rss', figure: mib(m.peakRss), unit: 'MiB', reference: mib(m.bytes), ratio: round(m.peakRss / m.bytes, 1) });
    scenarios.push({ name: 'export.memory.50k.time', figure: round(m.ms), unit: 'ms' });
  }
  rmSync(dir, { recursive: true, force: true });
  return { scenarios };
}

if (import.meta.main) {
  const arg = (name: string): string | undefined => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const childN = arg('memory-child');
  if (childN) {
    await memoryChild(Number(childN), arg('dir')!);
  } else {
    const json = process.argv.includes('--json');
    const events = arg('events');
    const result = await runExportBench({ events: events ? Number(events) : undefined });
    if (json) console.log(JSON.stringify(result, null, 2));
    else {
      for (const s of result.scenarios) {
        const extra = s.ratio !== undefined ? `  (reference ${s.reference}, ratio ${s.ratio})` : '';
        console.log(`${s.name.padEnd(32)} ${String(s.figure).padStart(9)} ${s.unit}${extra}`);
      }
    }
  }
}
