import { randomUUID } from 'node:crypto';
import { CalendarClient } from '../api/index.ts';
import type { ResolvedSite } from '../config/sites.ts';
import type { EventDraft, Normalized } from '../model/draft.ts';
import type { Language } from '../model/languages.ts';
import { fetchSource, FetchError } from '../sources/fetch/index.ts';
import { normalizeIcs } from '../sources/ics/index.ts';
import { SiteWriter, type OnEdit } from '../sync/events.ts';
import { RunReport, type ReportJson } from '../sync/report.ts';
import type { RetirePolicy } from '../sync/retire.ts';
import { clientHooks, ledgerFor, stateFor, RunFailedError, type RunContext } from './context.ts';

export interface IcsImportParams {
  /** URL (http, https, webcal) or a local file (CLI only: `allowFiles`). */
  location: string;
  site: ResolvedSite;
  sourceKey: string;
  lang: Language;
  window: { from: Date; to: Date };
  retire: RetirePolicy;
  onEdit: OnEdit;
  defaultTimezone: string;
  status: 'publish' | 'draft';
  createTerms: boolean;
  categoriesAs: 'categories' | 'tags';
  dryRun: boolean;
  forceRetire?: boolean;
  maxRetireShare?: number;
  allow?: string[];
  allowFiles?: boolean;
  /** Re-process an unchanged (304) feed anyway once this old, so recurrences entering the horizon arrive. */
  refreshAfterMs?: number;
}

interface FetchState {
  etag?: string;
  lastModified?: string;
  processedAt?: string;
  uidsSample?: string[];
}

const BATCH = 250;

/**
 * One ICS import: fetch (conditional) → parse + normalize → terms, venues/organizers, events by
 * slug → retire what vanished → report. The CLI runs it inline and the `import-ics` job runs the
 * same function, so both behave the same.
 */
export async function runIcsImport(p: IcsImportParams, ctx: RunContext = {}): Promise<ReportJson> {
  const report = new RunReport({ id: ctx.runId ?? randomUUID(), kind: 'import-ics', source: p.sourceKey, site: p.site.name, language: p.lang, dryRun: p.dryRun });
  const state = stateFor(ctx);
  const stateKey = `fetch:${p.site.key}:${p.lang}:${p.sourceKey}`;
  const prev = (await state.get<FetchState>(stateKey)) ?? {};
  const refreshAfter = p.refreshAfterMs ?? 24 * 3_600_000;
  const recent = prev.processedAt !== undefined && Date.now() - Date.parse(prev.processedAt) < refreshAfter;

  await ctx.onProgress?.({ phase: 'fetch', done: 0 });
  let fetched;
  try {
    fetched = await fetchSource(p.location, {
      allow: p.allow,
      allowFiles: p.allowFiles,
      signal: ctx.signal,
      conditional: recent && !p.dryRun ? { etag: prev.etag, lastModified: prev.lastModified } : undefined,
    });
  } catch (err) {
    const msg = err instanceof FetchError ? err.message : `could not read ${p.location}: ${(err as Error).message}`;
    throw new RunFailedError('fetch-failed', msg, { cause: err });
  }
  if (fetched.notModified) {
    report.notModified = true;
    ctx.log?.info({ source: p.sourceKey }, 'feed not modified');
    return report.finish();
  }
  if (!fetched.body) throw new RunFailedError('fetch-failed', `${p.location}: empty response`);

  await ctx.onProgress?.({ phase: 'parse', done: 0 });
  const { items, summary } = await normalizeIcs(new Uint8Array(fetched.body.buffer, fetched.body.byteOffset, fetched.body.byteLength), {
    sourceKey: p.sourceKey,
    sourceName: p.location,
    window: p.window,
    defaultTimezone: p.defaultTimezone,
    status: p.status,
    categoriesAs: p.categoriesAs,
  });
  if (summary.withoutUid > 0) report.warn(`${summary.withoutUid} VEVENT(s) have no UID: identified by summary + start + location, so editing those fields in the source makes a new event`);

  const client = new CalendarClient({ ...p.site.connection, language: p.lang, ...clientHooks(ctx, p.site.key) });
  const ledger = ledgerFor(ctx, { site: p.site.key, language: p.lang, source: p.sourceKey });
  try {
    await guardUidChurn(items, summary.uids, prev, ledger, p, report);
    const writer = new SiteWriter({
      client,
      ledger,
      report,
      sourceKey: p.sourceKey,
      lang: p.lang,
      dryRun: p.dryRun,
      onEdit: p.onEdit,
      status: p.status,
      createTerms: p.createTerms,
      concurrency: p.site.concurrency,
      signal: ctx.signal,
    });
    await writer.prime(items);
    for (let i = 0; i < items.length; i += BATCH) {
      if (ctx.signal?.aborted) throw new RunFailedError('aborted', 'the run was cancelled');
      await writer.writeEvents(items.slice(i, i + BATCH));
      await ctx.onProgress?.({ phase: 'write', done: Math.min(i + BATCH, items.length), total: items.length });
    }
    await writer.retire({ policy: p.retire, window: p.window, maxShare: p.maxRetireShare, force: p.forceRetire });
    if (!p.dryRun) {
      await state.set(stateKey, { etag: fetched.etag, lastModified: fetched.lastModified, processedAt: new Date().toISOString(), uidsSample: summary.uids.slice(0, 200) } satisfies FetchState);
    }
  } finally {
    report.countRequests(client.stats());
    await client.close();
  }
  return report.finish();
}

/**
 * Some feeds (Office 365 among them) mint new UIDs on every publish. Importing that would
 * duplicate everything and retire the old copies, so a feed whose UIDs ALL changed since the last
 * run, while the ledger holds a fair number of its events, is refused with a clear reason.
 */
async function guardUidChurn(
  items: Normalized<EventDraft>[],
  uids: string[],
  prev: FetchState,
  ledger: ReturnType<typeof ledgerFor>,
  p: IcsImportParams,
  report: RunReport,
): Promise<void> {
  if (p.forceRetire || !prev.uidsSample || prev.uidsSample.length < 5 || uids.length < 5) return;
  const now = new Set(uids);
  const overlap = prev.uidsSample.filter((u) => now.has(u)).length;
  if (overlap > 0) return;
  const size = await ledger.size('events');
  if (size < 5) return;
  report.warn(`all ${uids.length} UIDs differ from the previous run's`);
  throw new RunFailedError(
    'uid-churn',
    `every UID in ${p.location} changed since the last run (${items.length} items, none matching the ${prev.uidsSample.length} UIDs seen before). ` +
      'This feed regenerates its UIDs; importing it would duplicate its events. Rerun with --force-retire to accept the new UIDs (old copies are then retired by --retire).',
  );
}
