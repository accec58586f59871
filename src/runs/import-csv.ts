import path from 'node:path';
import { addAbortSignal, Readable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { CalendarClient } from '../api/index.ts';
import type { ResolvedSite } from '../config/sites.ts';
import type { EventDraft, OrganizerDraft, VenueDraft, Normalized } from '../model/draft.ts';
import type { Language } from '../model/languages.ts';
import { fetchSource, FetchError, openFileCapped } from '../sources/fetch/index.ts';
import { inspectCsv, readCsvBatches, shortRowsWarning, CsvRefusedError, type CsvInspection, type CsvItem, type CsvKind, type CsvOptions } from '../sources/csv/index.ts';
import { dropUnsafeImages } from '../sources/images.ts';
import { SiteWriter } from '../write/writer.ts';
import type { AdoptLinked } from '../write/linked.ts';
import { RunReport, type ReportJson } from '../report/report.ts';
import { clientHooks, failedWith, ledgerFor, throwIfSiteDown, RunFailedError, type RunContext } from './context.ts';
import { checkSite, defaultZone, ledgerHeldBySite, type DefaultZone } from './site-check.ts';
import { guardSourceOverlap } from './overlap-guard.ts';
import { checkLegacyKey, withSettledKey } from './source-key.ts';
import { draftSlug } from '../write/draft-keys.ts';
import { linkedSlug } from '../write/linked.ts';
import { RejectsFile, type RejectRow } from './rejects-file.ts';

export interface CsvImportParams {
  location: string;
  site: ResolvedSite;
  kind: CsvKind;
  sourceKey: string;
  lang: Language;
  mapping?: Record<string, string>;
  key?: string;
  dateFormat?: string;
  encoding?: string;
  delimiter?: CsvOptions['delimiter'];
  /** Zone for rows without one; undefined until prepareCsv() puts the site's own zone there. */
  defaultTimezone?: string;
  status: 'publish' | 'draft';
  createTerms: boolean;
  /** Venues/organizers already on the site that calsync did not create. @defaultValue 'link' */
  adoptLinked?: AdoptLinked;
  /** A first run may create events another source of the site already imported (a second copy). */
  allowOverlap?: boolean;
  dryRun: boolean;
  chunkSize: number;
  rejectsPath?: string;
  allow?: string[];
  allowFiles?: boolean;
  /** The key was derived from the location: settled at the start (src/runs/source-key.ts). */
  keyFromLocation?: boolean;
  /** Set by settling: the key earlier versions derived, checked against the first chunk before any write. */
  legacyKey?: string;
}

/** One chunk of rows as it travels from the reader to the writer (and through Redis in flows). */
export interface CsvChunk {
  index: number;
  items: CsvItem[];
}

export type { RejectRow } from './rejects-file.ts';

/** A chunk's result: its report plus the rows to write to the rejects file. */
export interface ChunkResult {
  report: ReportJson;
  rejects: RejectRow[];
}

/**
 * The byte source for a CSV: a local file (CLI) or a URL fetched once through the safe fetch. The
 * reader streams it twice (inspection, then rows), so URLs are buffered within the fetch byte cap.
 * Each stream ends at `signal` (a worker's shutdown cuts a queued planner off while it reads a big
 * file), and a fetched body is handed on in slices, so a cut-off stops it between two of them.
 */
export async function csvOpener(p: Pick<CsvImportParams, 'location' | 'allow' | 'allowFiles'>, signal?: AbortSignal): Promise<() => NodeJS.ReadableStream> {
  const abortable = (s: Readable): Readable => (signal ? addAbortSignal(signal, s) : s);
  if (/^(https?|webcals?):\/\//i.test(p.location)) {
    let body: Buffer;
    try {
      const r = await fetchSource(p.location, { allow: p.allow, signal });
      body = r.body ?? Buffer.alloc(0);
    } catch (err) {
      throw new RunFailedError('fetch-failed', err instanceof FetchError ? err.message : `could not read ${p.location}: ${(err as Error).message}`, { cause: err });
    }
    return () => abortable(Readable.from(slices(body)));
  }
  if (!p.allowFiles) throw new RunFailedError('file-not-allowed', `${p.location}: local files are only read by the CLI; give a URL`);
  return () => abortable(openFileCapped(p.location));
}

/** A buffer in the slices a file stream reads (views, not copies). */
function* slices(body: Buffer, size = 64 * 1024): Generator<Buffer> {
  for (let at = 0; at < body.length; at += size) yield body.subarray(at, at + size);
}

export function csvOptions(p: CsvImportParams): CsvOptions {
  return {
    kind: p.kind,
    sourceKey: p.sourceKey,
    sourceName: path.basename(p.location),
    encoding: p.encoding,
    delimiter: p.delimiter,
    mapping: p.mapping,
    key: p.key,
    dateFormat: p.dateFormat,
    defaultTimezone: p.defaultTimezone ?? 'UTC',
    status: p.status,
  };
}

/**
 * Before any row is read: the site's preflight (a dead site, a wrong password or a URL that is
 * not a calendar site end the run here), and the zone for rows without one, which is the site's
 * own unless one was given. The inline run and the flow's planner both start with it.
 */
export async function prepareCsv(p: CsvImportParams, ctx: RunContext, report?: RunReport): Promise<{ params: CsvImportParams; zone: DefaultZone; setAside?: string }> {
  const facts = await checkSite(p.site, { write: !p.dryRun }, ctx, report);
  const zone = defaultZone(p.defaultTimezone, facts);
  // A dry run's chunks read the ledger themselves: its warning says what a real run will do.
  const { setAside } = await ledgerHeldBySite(p.site, { lang: p.lang, source: p.sourceKey }, p.kind, ctx, { dryRun: p.dryRun, report });
  return { params: { ...p, defaultTimezone: zone.zone }, zone, ...(setAside ? { setAside } : {}) };
}

/** Reads the file once to decide encoding, delimiter, header, mapping and date format. */
export async function inspect(p: CsvImportParams, open: () => NodeJS.ReadableStream): Promise<CsvInspection> {
  try {
    return await inspectCsv(open, csvOptions(p));
  } catch (err) {
    if (err instanceof CsvRefusedError) throw new RunFailedError('csv-refused', err.message, { cause: err });
    throw err;
  }
}

/** Streams rows in chunks of `chunkSize` (memory stays flat however long the file is). */
export async function* chunks(p: CsvImportParams, open: () => NodeJS.ReadableStream, inspection: CsvInspection): AsyncIterable<CsvChunk> {
  let items: CsvItem[] = [];
  let index = 0;
  for await (const batch of readCsvBatches(open, csvOptions(p), inspection)) {
    for (const item of batch) {
      items.push(item);
      if (items.length >= p.chunkSize) {
        yield { index: index++, items };
        items = [];
      }
    }
  }
  if (items.length) yield { index: index++, items };
}

/** True when some row of the chunk had its times read in the default zone (it names none): only then does the report name that zone. */
export function readsDefaultZone(chunk: CsvChunk): boolean {
  return chunk.items.some((i) => i.floating === true);
}

/**
 * The source-key checks on the first chunk, before anything is written: whether a settled key's
 * rows were imported under the key earlier versions derived (src/runs/source-key.ts: then the run
 * starts over under it), and an event import's first run against the site's other sources
 * (src/runs/overlap-guard.ts): the warning to report, if some events are shared.
 */
export async function guardCsvOverlap(p: CsvImportParams, first: CsvChunk, ctx: RunContext): Promise<string | undefined> {
  await checkLegacyKey(p, ctx, p.kind, (key) => first.items.flatMap((i) => (i.result.ok ? [rowSlug(p.kind, key, i.result.draft)] : [])));
  if (p.kind !== 'events') return undefined;
  const results = first.items.map((i) => i.result) as Normalized<EventDraft>[];
  return guardSourceOverlap(p, results, ledgerFor(ctx, { site: p.site.key, language: p.lang, source: p.sourceKey }), ctx);
}

/** The slug a row's record has under a source key (venues and organizers: the same under every key). */
function rowSlug(kind: CsvImportParams['kind'], key: string, d: EventDraft | VenueDraft | OrganizerDraft): string {
  if (kind === 'events') return draftSlug(key, d as EventDraft);
  return d.slug ?? (kind === 'venues' ? linkedSlug('venues', (d as VenueDraft).venue, d.identity) : linkedSlug('organizers', (d as OrganizerDraft).organizer, d.identity));
}

/**
 * Writes one chunk: the processor the inline run and the `import-csv-chunk` job share. Safe to
 * rerun: by-slug upserts and the ledger make a retried chunk write nothing it already wrote.
 */
export async function processChunk(p: CsvImportParams, chunk: CsvChunk, ctx: RunContext = {}): Promise<ChunkResult> {
  const report = new RunReport({ id: ctx.runId ?? randomUUID(), kind: 'import-csv', source: p.sourceKey, site: p.site.name, language: p.lang, dryRun: p.dryRun });
  const client = new CalendarClient({ ...p.site.connection, language: p.lang, ...clientHooks(ctx, p.site.key, p.site.connection.restRoot) });
  const ledger = ledgerFor(ctx, { site: p.site.key, language: p.lang, source: p.sourceKey });
  const rawByLine = new Map(chunk.items.map((i) => [i.line, i.raw]));
  try {
    const writer = new SiteWriter({ client, ledger, report, sourceKey: p.sourceKey, lang: p.lang, dryRun: p.dryRun, status: p.status, createTerms: p.createTerms, adoptLinked: p.adoptLinked, concurrency: p.site.concurrency, signal: ctx.signal, mark: ctx.jobMark });
    const results = chunk.items.map((i) => i.result);
    await dropUnsafeImages(results, { allow: p.allow }, (w) => report.warn(w));
    if (p.kind === 'events') {
      await writer.writeEvents(results as Normalized<EventDraft>[]);
    } else {
      // One listing of the site's venues/organizers replaces a lookup per row the ledger does not know.
      const drafts = chunk.items.flatMap((i) => (i.result.ok ? [i.result.draft] : []));
      await writer.linked.prime(p.kind === 'venues' ? (drafts as VenueDraft[]) : [], p.kind === 'organizers' ? (drafts as OrganizerDraft[]) : []);
      const firstLine = new Map<string, number | undefined>();
      for (const item of chunk.items) {
        const r = item.result;
        if (!r.ok) {
          report.add({ kind: p.kind, outcome: 'failed', reason: r.failure.reason, origin: r.failure.origin });
          continue;
        }
        const origin = { source: path.basename(p.location), line: item.line };
        const slug = p.kind === 'venues' ? writer.linked.venueSlug(r.draft as VenueDraft) : writer.linked.organizerSlug(r.draft as OrganizerDraft);
        if (firstLine.has(slug)) {
          report.add({ kind: p.kind, slug, outcome: 'skipped', reason: `duplicate of line ${firstLine.get(slug) ?? '?'} (same identity)`, origin });
          continue;
        }
        firstLine.set(slug, origin.line);
        if (p.kind === 'venues') await writer.linked.venue(r.draft as VenueDraft, origin);
        else await writer.linked.organizer(r.draft as OrganizerDraft, origin);
      }
    }
    throwIfSiteDown(client);
  } finally {
    report.countRequests(client.stats());
    await client.close();
  }
  const rejects: RejectRow[] = [];
  for (const item of report.items) {
    if (item.outcome !== 'failed' || item.origin?.line === undefined) continue;
    rejects.push({ line: item.origin.line, raw: rawByLine.get(item.origin.line) ?? [], reason: item.reason ?? '' });
  }
  return { report: report.toJSON(), rejects };
}

/** The inline run (CLI): the same chunks through the same processor, one after another. */
export async function runCsvImport(p: CsvImportParams, ctx: RunContext = {}): Promise<ReportJson & { rejectsFile?: string; unmapped?: string[] }> {
  return withSettledKey(p, ctx, (settled) => runKeyed(settled, ctx));
}

async function runKeyed(p: CsvImportParams, ctx: RunContext): Promise<ReportJson & { rejectsFile?: string; unmapped?: string[] }> {
  const total = new RunReport({ id: ctx.runId ?? randomUUID(), kind: 'import-csv', source: p.sourceKey, site: p.site.name, language: p.lang, dryRun: p.dryRun });
  try {
    return await importCsv(p, { ...ctx, breakers: ctx.breakers ?? new Map() }, total);
  } catch (err) {
    throw failedWith(err, total);
  }
}

async function importCsv(input: CsvImportParams, ctx: RunContext, total: RunReport): Promise<ReportJson & { rejectsFile?: string; unmapped?: string[] }> {
  const { params: p, zone, setAside } = await prepareCsv(input, ctx, total);
  if (setAside) total.warn(setAside);
  const open = await csvOpener(p);
  await ctx.onProgress?.({ phase: 'inspect', done: 0 });
  const inspection = await inspect(p, open);
  if (inspection.unmapped.length) total.warn(`columns not mapped to any field (ignored): ${inspection.unmapped.join(', ')}; map them with --map`);
  const short = shortRowsWarning(inspection.shortRows);
  if (short) total.warn(short);
  // Rejected rows are kept only when a rejects file was asked for, and then on disk.
  const rejects = p.rejectsPath ? new RejectsFile(p.rejectsPath) : undefined;
  let rejectsFile: string | undefined;
  try {
    let done = 0;
    let n = 0;
    for await (const chunk of chunks(p, open, inspection)) {
      if (ctx.signal?.aborted) throw new RunFailedError('aborted', 'the run was cancelled');
      const shared = chunk.index === 0 ? await guardCsvOverlap(p, chunk, ctx) : undefined;
      if (shared) total.warn(shared);
      if (readsDefaultZone(chunk)) total.defaultTimezone = zone;
      const r = await processChunk(p, chunk, ctx);
      total.mergeChunk(r.report, p.kind);
      await rejects?.spool(chunk.index, r.rejects);
      n = chunk.index + 1;
      done += chunk.items.length;
      await ctx.onProgress?.({ phase: 'rows', done, total: inspection.rows });
    }
    rejectsFile = await rejects?.write(n, inspection);
  } finally {
    await rejects?.discard();
  }
  return { ...total.finish(), ...(rejectsFile ? { rejectsFile } : {}), unmapped: inspection.unmapped };
}
