import { preflight } from '../api/preflight.ts';
import { CalendarClient, type EventRecord, type SiteConnection } from '../api/index.ts';
import type { Language } from '../model/languages.ts';
import { assertFeedName, feedFileName, isLanguage, writeArtifact } from '../export/artifacts.ts';
import { EventRenderError, ExportAbortedError, ExportError, ExportFetchError, ExportParamsError } from '../export/errors.ts';
import { compareRendered, DEFAULT_REFRESH_INTERVAL, durationSeconds, icsParts, renderEvent, ZoneUsage, type RenderedEvent, type RenderOptions } from '../export/render.ts';
import { eventTiming } from '../export/timing.ts';
import { clientHooks, type RunContext, type RunProgress } from './context.ts';
import { inWindow, windowQuery, type ExportFilters, type ExportWindow } from '../export/window-query.ts';

/**
 * One export run: for each language, read the window from the site (page 1 for the total, the
 * remaining pages concurrently through the client's iterator), render each event as it arrives,
 * then sort and write `<outDir>/<name>.<lang>.ics` atomically, only when its bytes changed.
 *
 * Only the rendered VEVENT text of each event is kept (a few hundred bytes to a few KB), never the
 * records with their embedded venues, organizers and terms; measured in bench/export-ics.ts.
 * Venues, organizers and terms come embedded in the event objects: nothing is fetched twice.
 *
 * Languages run one after the other. A failure aborts the run with a typed error; feeds already
 * written for earlier languages stay (each file is replaced atomically or not at all).
 */

export interface ExportParams {
  /** Feed name `[a-z0-9-]+`: files are `<outDir>/<name>.<lang>.ics`. */
  name: string;
  connection: SiteConnection;
  siteKey: string;
  /** Host used in UIDs (`<id>@<siteHost>`); default: the host (and port, and path) of `connection.restRoot` (siteHostOf). */
  siteHost?: string;
  languages: Language[];
  window: ExportWindow;
  filters?: ExportFilters;
  outDir: string;
  /** ISO 8601 duration for REFRESH-INTERVAL / X-PUBLISHED-TTL; default PT1H. */
  refreshInterval?: string;
  /** X-WR-CALNAME; default `<name> (<lang>)`. */
  calendarName?: string;
  /** Pages in flight after the first (default 4, the client's default). */
  concurrency?: number;
}

export interface SkippedEvent {
  id: number;
  reason: string;
}

export interface ExportFile {
  lang: Language;
  path: string;
  /** Events written to the file. */
  events: number;
  bytes: number;
  /** False when the file already held these bytes and was left untouched (same mtime, same ETag). */
  changed: boolean;
  /** Strong ETag of the bytes, as the feed server sends it. */
  etag: string;
  /** Records the site listed for the (widened) query: events + outsideWindow + skipped. */
  read: number;
  /** Listed by the widened query but not overlapping the exact window. */
  outsideWindow: number;
  /** Listed but left out, with the reason (unreadable dates, hidden, listed twice). */
  skipped: SkippedEvent[];
}

export interface ExportResult {
  name: string;
  files: ExportFile[];
  durationMs: number;
}

/** An export's progress is any run's (phase, done, total). */
export type ExportProgress = RunProgress;

/** An export runs in the same RunContext as every other run (src/runs/context.ts). */
export type ExportContext = RunContext;

/** An export reads the site like any run: through the site's shared request limit, counted in its metrics. */
function exportConnection(p: Pick<ExportParams, 'connection' | 'siteKey'>, ctx: RunContext): SiteConnection {
  return { ...p.connection, ...clientHooks(ctx, p.siteKey) };
}

/** A language's window, rendered and sorted, ready to be written. */
export interface CollectedFeed {
  events: RenderedEvent[];
  zones: ZoneUsage;
  read: number;
  outsideWindow: number;
  skipped: SkippedEvent[];
}

export interface CollectOptions {
  lang: Language;
  window: ExportWindow;
  filters?: ExportFilters;
  siteHost: string;
  concurrency?: number;
  signal?: AbortSignal;
  onRecord?: (read: number, total: number) => void;
}

const PER_PAGE = 50;

/**
 * The right-hand side of the feed's UIDs: the site's host, with its port and its path before
 * `/wp-json` when it has them. With the host name alone, two sites on one host (other ports, a
 * multisite network's sub-directories) gave their events the same UIDs (`11@127.0.0.1` from both),
 * and calendar apps merge events with equal UIDs.
 */
export function siteHostOf(p: Pick<ExportParams, 'siteHost' | 'siteKey'> & { connection: Pick<ExportParams['connection'], 'restRoot'> }): string {
  if (p.siteHost) return p.siteHost;
  try {
    const url = new URL(p.connection.restRoot);
    const path = url.pathname.replace(/\/wp-json\/?$/, '').replace(/\/+$/, '');
    return url.host ? `${url.host}${path}` : p.siteKey;
  } catch {
    return p.siteKey;
  }
}

function validate(p: ExportParams): void {
  assertFeedName(p.name);
  if (!p.languages.length) throw new ExportParamsError('languages', 'at least one language is needed');
  for (const l of p.languages) if (!isLanguage(l)) throw new ExportParamsError('languages', `"${l}" is not a site language`);
  const from = p.window.from.getTime();
  const to = p.window.to.getTime();
  if (!Number.isFinite(from) || !Number.isFinite(to)) throw new ExportParamsError('window', 'from and to must be valid dates');
  if (to < from) throw new ExportParamsError('window', `to (${p.window.to.toISOString()}) is before from (${p.window.from.toISOString()})`);
  if (!p.outDir) throw new ExportParamsError('outDir', 'an output directory is needed');
  durationSeconds(p.refreshInterval ?? DEFAULT_REFRESH_INTERVAL);
}

/** Adds a record to the feed being collected (window, hidden and duplicate checks, rendering). */
function take(feed: CollectedFeed, seen: Set<number>, rec: EventRecord, o: Pick<CollectOptions, 'window' | 'siteHost'>): void {
  feed.read++;
  if (seen.has(rec.id)) {
    // Offset paging while the site changes can list an event on two pages; one UID, one VEVENT.
    feed.skipped.push({ id: rec.id, reason: 'listed twice (the site changed while it was paged)' });
    return;
  }
  seen.add(rec.id);
  if (rec.hide_from_listings === true) {
    feed.skipped.push({ id: rec.id, reason: 'hidden from listings' });
    return;
  }
  let timing;
  try {
    timing = eventTiming(rec);
  } catch (err) {
    if (err instanceof EventRenderError) {
      feed.skipped.push({ id: rec.id, reason: err.message });
      return;
    }
    throw err;
  }
  if (!inWindow(timing, o.window)) {
    feed.outsideWindow++;
    return;
  }
  const ev = renderEvent(rec, o);
  feed.events.push(ev);
  feed.zones.add(ev);
}

/**
 * Reads one language's window from the site and renders it (sorted by start, then id). The
 * building block of `runIcsExport`, exported for tests and for callers that want the text
 * without files (`exportIcsText`).
 */
export async function collectFeed(client: CalendarClient, o: CollectOptions): Promise<CollectedFeed> {
  const feed: CollectedFeed = { events: [], zones: new ZoneUsage(), read: 0, outsideWindow: 0, skipped: [] };
  const seen = new Set<number>();
  const query = windowQuery(o.window, o.filters);
  const call = { lang: o.lang, signal: o.signal };
  try {
    // Page 1 alone tells the total (for progress) and the page count.
    const first = await client.events.list({ ...query, page: 1, per_page: PER_PAGE }, call);
    for (const rec of first.items) take(feed, seen, rec, o);
    o.onRecord?.(feed.read, first.total);
    if (first.totalPages > 1 && first.items.length > 0) {
      const rest = client.events.iterate({ ...query, page: 2, per_page: PER_PAGE }, { ...call, concurrency: o.concurrency });
      for await (const rec of rest) {
        take(feed, seen, rec, o);
        if (feed.read % PER_PAGE === 0) o.onRecord?.(feed.read, first.total);
      }
      o.onRecord?.(feed.read, first.total);
    }
  } catch (err) {
    if (o.signal?.aborted) throw new ExportAbortedError({ cause: err });
    if (err instanceof ExportError) throw err;
    throw new ExportFetchError(o.lang, { cause: err });
  }
  feed.events.sort(compareRendered);
  return feed;
}

/** The feed text of one language (no file written): what `runIcsExport` would write. */
export async function exportIcsText(
  p: Omit<ExportParams, 'languages' | 'outDir'> & { lang: Language },
  ctx: RunContext = {},
): Promise<string> {
  const client = new CalendarClient(exportConnection(p, ctx));
  try {
    const siteHost = siteHostOf(p);
    const feed = await collectFeed(client, { lang: p.lang, window: p.window, filters: p.filters, siteHost, concurrency: p.concurrency, signal: ctx.signal });
    const opts: RenderOptions = { name: p.name, lang: p.lang, siteHost, refreshInterval: p.refreshInterval, calendarName: p.calendarName };
    return [...icsParts(opts, feed.events, feed.zones)].join('');
  } finally {
    await client.close();
  }
}

export async function runIcsExport(p: ExportParams, ctx: RunContext = {}): Promise<ExportResult> {
  const started = performance.now();
  validate(p);
  const siteHost = siteHostOf(p);
  const languages = [...new Set(p.languages)];
  const progress = (phase: string, done: number, total?: number): void => {
    try {
      // A job's progress update is a promise; a failed one must not become an unhandled rejection.
      void Promise.resolve(ctx.onProgress?.(total === undefined ? { phase, done } : { phase, done, total })).catch(() => undefined);
    } catch {
      // progress is advisory
    }
  };
  // A dead site, a wrong password or a URL that is not a calendar site: one message, before any page.
  await preflight(exportConnection(p, ctx), { write: false, signal: ctx.signal }).catch((err: unknown) => {
    throw ctx.signal?.aborted ? new ExportAbortedError({ cause: err }) : err;
  });
  const client = new CalendarClient(exportConnection(p, ctx));
  const files: ExportFile[] = [];
  try {
    for (const lang of languages) {
      if (ctx.signal?.aborted) throw new ExportAbortedError({ cause: ctx.signal.reason });
      progress(`fetch ${lang}`, 0);
      const feed = await collectFeed(client, {
        lang,
        window: p.window,
        filters: p.filters,
        siteHost,
        concurrency: p.concurrency,
        signal: ctx.signal,
        onRecord: (done, total) => progress(`fetch ${lang}`, done, total),
      });
      progress(`write ${lang}`, 0, feed.events.length);
      const opts: RenderOptions = { name: p.name, lang, siteHost, refreshInterval: p.refreshInterval, calendarName: p.calendarName };
      const written = await writeArtifact(p.outDir, feedFileName(p.name, lang), icsParts(opts, feed.events, feed.zones), ctx.signal);
      progress(`write ${lang}`, feed.events.length, feed.events.length);
      files.push({
        lang,
        path: written.path,
        events: feed.events.length,
        bytes: written.bytes,
        changed: written.changed,
        etag: written.etag,
        read: feed.read,
        outsideWindow: feed.outsideWindow,
        skipped: feed.skipped,
      });
    }
  } finally {
    await client.close();
  }
  return { name: p.name, files, durationMs: Math.round(performance.now() - started) };
}
