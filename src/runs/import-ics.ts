import { createHash, randomUUID } from 'node:crypto';
import { CalendarClient } from '../api/index.ts';
import type { ResolvedSite } from '../config/sites.ts';
import type { EventDraft, Normalized } from '../model/draft.ts';
import type { Language } from '../model/languages.ts';
import { fetchSource, FetchError } from '../sources/fetch/index.ts';
import { IcsError } from '../sources/ics/errors.ts';
import type { IcsNormalizeOptions } from '../sources/ics/normalize.ts';
import type { GroupOutcomes } from '../sources/ics/reuse.ts';
import { normalizeIcsIsolated, prewarmIcsParser, type IcsParseLimits, type IsolatedParseRun } from '../sources/ics/isolate.ts';
import { ImageGuard } from '../sources/fetch/image-guard.ts';
import { dropUnsafeImages } from '../sources/images.ts';
import { SiteWriter, type OnEdit } from '../write/writer.ts';
import { DraftKeys, draftSlug } from '../write/draft-keys.ts';
import type { AdoptLinked } from '../write/linked.ts';
import type { Ledger } from '../write/ledger.ts';
import { ledgerSnapshot, type LedgerSnapshot } from '../write/ledger-snapshot.ts';
import { gatedLedger, WriteGate } from '../write/gate.ts';
import { EarlyPlan } from './import-ics-early.ts';
import { RunReport, type ReportJson } from '../report/report.ts';
import type { RetirePolicy } from '../write/retire.ts';
import { clientHooks, failedWith, stateFor, throwIfSiteDown, RunFailedError, type RunContext } from './context.ts';
import { checkSite, defaultZone, ledgerHeldBySite } from './site-check.ts';
import { guardSourceOverlap } from './overlap-guard.ts';
import { checkLegacyKey, withSettledKey } from './source-key.ts';
import { GroupReuse } from './group-reuse.ts';
import { WriteProgress } from './write-progress.ts';
import { isLocalLocation, optionsFingerprint, reusableState, unchangedReason, type FetchState } from './rerun.ts';

export interface IcsImportParams {
  /** URL (http, https, webcal) or a local file (CLI only: `allowFiles`). */
  location: string;
  site: ResolvedSite;
  sourceKey: string;
  lang: Language;
  window: { from: Date; to: Date };
  retire: RetirePolicy;
  onEdit: OnEdit;
  /** Venues/organizers already on the site that calsync did not create. @defaultValue 'link' */
  adoptLinked?: AdoptLinked;
  /** Zone for floating times; undefined: the site's own zone (its REST index says which). */
  defaultTimezone?: string;
  status: 'publish' | 'draft';
  createTerms: boolean;
  categoriesAs: 'categories' | 'tags';
  dryRun: boolean;
  forceRetire?: boolean;
  /** A first run may create events another source of the site already imported (a second copy). */
  allowOverlap?: boolean;
  maxRetireShare?: number;
  allow?: string[];
  allowFiles?: boolean;
  /** Re-process an unchanged (304) feed anyway once this old, so recurrences entering the horizon arrive. */
  refreshAfterMs?: number;
  /** Occurrences (drafts, VEVENTs) one file may produce before it is refused. Default 250k. */
  maxOccurrencesPerFile?: number;
  /** Heap and time limits of the parsing thread (src/sources/ics/isolate.ts). */
  parseLimits?: IcsParseLimits;
  /** The key was derived from the location: settled at the start (src/runs/source-key.ts). */
  keyFromLocation?: boolean;
  /** Set by settling: the key earlier versions derived, checked against the feed before any write. */
  legacyKey?: string;
}

const BATCH = 250;
/** Up to this many ledger entries are read in one go during parsing (a few MB); beyond, by slug. */
const LEDGER_SNAPSHOT_MAX = 100_000;
/** Items the ledger already knows are mostly unchanged on a re-import (no request): more of them per batch. */
const KNOWN_PER_BATCH = 8 * BATCH;

/**
 * Where the batch starting at `from` ends: after BATCH items the ledger does not know (each one a
 * write), or KNOWN_PER_BATCH items in all, so an unchanged re-import is not cut into hundreds
 * of rounds of planning for nothing.
 */
export function batchEnd<T>(items: readonly T[], from: number, known: (it: T) => boolean): number {
  let unknown = 0;
  let i = from;
  while (i < items.length && i - from < KNOWN_PER_BATCH && unknown < BATCH) if (!known(items[i++]!)) unknown++;
  return i;
}

/**
 * One ICS import: fetch (conditional) → parse + normalize → terms, venues/organizers, events by
 * slug → retire what vanished → report. The CLI runs it inline and the `import-ics` job runs the
 * same function, so both behave the same.
 */
export async function runIcsImport(p: IcsImportParams, ctx: RunContext = {}): Promise<ReportJson> {
  return withSettledKey(p, ctx, (settled) => runKeyed(settled, ctx));
}

async function runKeyed(p: IcsImportParams, ctx: RunContext): Promise<ReportJson> {
  const report = new RunReport({ id: ctx.runId ?? randomUUID(), kind: 'import-ics', source: p.sourceKey, site: p.site.name, language: p.lang, dryRun: p.dryRun });
  try {
    return await importIcs(p, ctx, report);
  } catch (err) {
    throw failedWith(err, report);
  }
}

async function importIcs(p: IcsImportParams, ctx: RunContext, report: RunReport): Promise<ReportJson> {
  // The parser thread loads while the site is checked and the feed fetched (loading costs more than
  // parsing a typical feed); unused, it ends on its own.
  prewarmIcsParser(p.parseLimits);
  const facts = await checkSite(p.site, { write: !p.dryRun }, ctx, report);
  const held = await ledgerHeldBySite(p.site, { lang: p.lang, source: p.sourceKey }, 'events', ctx, { report, dryRun: p.dryRun });
  if (held.setAside) report.warn(held.setAside);
  const zone = defaultZone(p.defaultTimezone, facts);
  const last = await lastRun(p, ctx, zone.zone, held.setAside !== undefined);
  const reuse = p.dryRun ? undefined : new GroupReuse(last.state, { site: p.site.key, lang: p.lang, source: p.sourceKey });
  // Only after a clean run are recorded groups offered (a run that failed anything may have left a
  // group's events half written); their records are read while the feed is fetched.
  const offering = reuse !== undefined && last.prev.clean === true && !last.again;
  if (offering) void reuse.read();

  await ctx.onProgress?.({ phase: 'fetch', done: 0 });
  const fetched = await fetchFeed(p, ctx, last);
  const sha = fetched.body ? createHash('sha256').update(fetched.body).digest('hex') : undefined;
  if (fetched.notModified || (last.reusable && sha !== undefined && sha === last.prev.sha)) {
    report.notModified = true;
    report.unchangedReason = unchangedReason(isLocalLocation(p.location), fetched.notModified);
    ctx.log?.info({ source: p.sourceKey }, 'feed not modified');
    return report.finish();
  }
  if (!fetched.body) throw new RunFailedError('fetch-failed', `${p.location}: empty response`);

  // The ledger is read while the parser thread works (this thread would only wait meanwhile), and
  // the first parts of the feed are planned as they arrive; nothing is written before the feed is
  // accepted (EarlyPlan, WriteGate).
  const ledger = held.ledger;
  const snapshot = ledgerSnapshot(ledger, 'events', LEDGER_SNAPSHOT_MAX).catch(() => undefined);
  const gate = new WriteGate();
  const client = new CalendarClient({ ...p.site.connection, language: p.lang, ...clientHooks(ctx, p.site.key), gate });
  const guard = new ImageGuard({ allow: p.allow });
  // The drafts' slugs and body shapes are hashed by the parser thread (src/write/draft-keys.ts).
  const keys = new DraftKeys(p.sourceKey, p.status);
  const writer = new SiteWriter({
    client, ledger: gatedLedger(ledger, gate), report, sourceKey: p.sourceKey, lang: p.lang, dryRun: p.dryRun, onEdit: p.onEdit, adoptLinked: p.adoptLinked,
    status: p.status, createTerms: p.createTerms, concurrency: p.site.concurrency, signal: ctx.signal, keys, mark: ctx.jobMark,
  });
  const early = new EarlyPlan(writer, snapshot, guard, KNOWN_PER_BATCH, ctx.signal);
  const run: WriteRun = { client, writer, gate, early, reuse };
  report.hold();
  try {
    await ctx.onProgress?.({ phase: 'parse', done: 0 });
    // The groups to reuse are worked out while the parser thread reads the file (it waits for them before its first group).
    const offered = offering ? reuse.offer(p.window, snapshot, writer) : undefined;
    const parseRun = { signal: ctx.signal, onItems: (part: Normalized<EventDraft>[]) => early.add(part), keys, ...(offered ? { reuse: offered } : {}) };
    const { items, summary, groups: outcomes } = await parseFeed(fetched.body, { ...p, defaultTimezone: zone.zone }, parseRun, reuse && {});
    await offered;
    if (outcomes) ctx.log?.info({ source: p.sourceKey, reused: outcomes.reused.length, recordable: outcomes.recordable.length }, 'UID groups unchanged since the last clean run were not normalized again');
    // The zone is named only when some floating time was read in it.
    if (summary.floatingInDefaultZone) report.defaultTimezone = zone;
    // The parser's own notes (recovered damage, untitled events, truncated series): already capped.
    for (const w of summary.warnings) report.warn(w);
    const empty = emptyFeedNote(summary, p.window);
    if (empty) report.warn(empty);
    await dropUnsafeImages(items, { allow: p.allow }, (w) => report.warn(w), guard);
    if (summary.withoutUid > 0) report.warn(`${summary.withoutUid} VEVENT(s) have no UID: identified by summary + start + location, so editing those fields in the source makes a new event`);
    const done: FetchState = { etag: fetched.etag, lastModified: fetched.lastModified, uidsSample: summary.uids.slice(0, 200), sha, options: last.options };
    await writeFeed(p, ctx, report, { items, uids: summary.uids, ledger, snapshot: await snapshot, groups: outcomes }, last, done, run);
  } catch (err) {
    await refuse(run, report, err);
    throw err;
  } finally {
    await client.close();
  }
  return report.finish();
}

/**
 * Why a feed gave no events at all, when it gave none: without it the report shows no events line
 * and the run exits 0, and nothing tells the user that the feed's events lie outside the window
 * (by default from now on: an archive of past events imports nothing) or that it holds no VEVENT.
 */
export function emptyFeedNote(summary: { vevents: number; occurrences: number; failures: number; accounting: { outsideWindow: number } }, window: { from: Date; to: Date }): string | undefined {
  if (summary.occurrences > 0 || summary.failures > 0) return undefined;
  if (summary.vevents === 0) return 'the feed holds no VEVENT (no event to import; to-dos, journals and free/busy are not imported)';
  const day = (d: Date) => d.toISOString().slice(0, 10);
  if (summary.accounting.outsideWindow === 0) return undefined;
  return `none of the feed's ${summary.vevents} VEVENT(s) has an occurrence in the window ${day(window.from)}..${day(window.to)}: nothing imported (widen it with --window, --past-days or --horizon-days)`;
}

/** The client, writer and gate of one import, and the parts of its feed planned while it was parsed. */
interface WriteRun {
  client: CalendarClient;
  writer: SiteWriter;
  gate: WriteGate;
  early: EarlyPlan;
  /** UID groups recorded by the last clean run and not normalized again (undefined: a dry run). */
  reuse?: GroupReuse;
  /** Set once the feed is accepted and writes may go. */
  open?: boolean;
}

/**
 * A run failing before it could write (a refused feed, the changed-UIDs guard): every write its early
 * planning holds fails at the gate, and what that planning reported is dropped. Nothing to do once
 * the gate is open (a failure while writing reports what was written, as it always did).
 */
async function refuse(run: WriteRun, report: RunReport, err: unknown): Promise<void> {
  if (run.open) return;
  run.gate.refuse(err instanceof Error ? err : new Error(String(err)));
  await run.early.finish().catch(() => undefined);
  report.discard();
}

/** What the previous run of this feed left, and whether its "unchanged, skip" shortcut may be used. */
interface LastRun {
  state: ReturnType<typeof stateFor>;
  key: string;
  prev: FetchState;
  options: string;
  reusable: boolean;
  /** The state was stored by an earlier delivery of this run's job (FetchState `job`). */
  again: boolean;
}

/** `forgotten`: the site lost what the ledger says this feed wrote, so nothing the last run left holds. */
async function lastRun(p: IcsImportParams, ctx: RunContext, zone: string, forgotten: boolean): Promise<LastRun> {
  const state = stateFor(ctx);
  const key = `fetch:${p.site.key}:${p.lang}:${p.sourceKey}`;
  const prev = forgotten ? {} : ((await state.get<FetchState>(key)) ?? {});
  const options = optionsFingerprint(p, zone);
  const again = ctx.jobMark !== undefined && prev.job === ctx.jobMark;
  // The "unchanged, skip" shortcut only holds for the same options after a run that failed nothing,
  // and another run: this run's own state says nothing about what it has to report.
  const reusable = !p.dryRun && !again && reusableState(prev, options, p.refreshAfterMs ?? 24 * 3_600_000);
  return { state, key, prev, options, reusable, again };
}

async function fetchFeed(p: IcsImportParams, ctx: RunContext, last: LastRun) {
  try {
    return await fetchSource(p.location, {
      allow: p.allow,
      allowFiles: p.allowFiles,
      signal: ctx.signal,
      conditional: last.reusable ? { etag: last.prev.etag, lastModified: last.prev.lastModified } : undefined,
    });
  } catch (err) {
    const msg = err instanceof FetchError ? err.message : `could not read ${p.location}: ${(err as Error).message}`;
    throw new RunFailedError('fetch-failed', msg, { cause: err });
  }
}

interface ParsedFeed {
  items: Normalized<EventDraft>[];
  uids: string[];
  ledger: Ledger;
  /** Every ledger entry of the source's events, read during parsing (undefined: too many, or unreadable). */
  snapshot?: LedgerSnapshot;
  /** The UID groups the parser reused, and those it normalized that may be recorded. */
  groups?: GroupOutcomes;
}

/**
 * Terms, venues/organizers and events to the site in batches, then retirement. The feed counts as
 * done (`clean`) only when this ends with nothing failed: until then no later run may skip it.
 */
async function writeFeed(p: IcsImportParams, ctx: RunContext, report: RunReport, feed: ParsedFeed, last: LastRun, done: FetchState, run: WriteRun): Promise<void> {
  const { client, writer } = run;
  const { items, ledger } = feed;
  let progress: WriteProgress | undefined;
  try {
    await checkLegacyKey(p, ctx, 'events', (key) => items.flatMap((it) => (it.ok ? [draftSlug(key, it.draft)] : [])));
    await guardUidChurn(items, feed.uids, last.prev, ledger, p, report);
    const shared = await guardSourceOverlap(p, items, ledger, ctx, feed.snapshot?.size);
    if (shared) report.warn(shared);
    // Until this run ends clean, no later run may take the feed as done (a crash mid-write included).
    if (!p.dryRun) await last.state.set(last.key, { ...last.prev, clean: false } satisfies FetchState);
    // The feed is accepted: what was planned early may write, and its report items count.
    run.open = true;
    run.gate.open();
    report.release();
    progress = new WriteProgress(ctx, items.length, () => report.counts.events.read);
    const planned = await run.early.finish();
    if (run.reuse && feed.groups?.reused.length) await run.reuse.standIn(feed.groups.reused, p.location, writer, report);
    throwIfSiteDown(client);
    if (planned > 0) await progress.note(planned);
    await writer.prime(planned > 0 ? items.slice(planned) : items, feed.snapshot);
    // Two batches overlap: the next one is planned and starts while the last requests of the one
    // before are still out, so the site is not left idle at every batch's tail (the client's
    // connection pool still caps requests in flight at the site's concurrency).
    let previous: { written: Promise<void>; done: number } | undefined;
    for (let i = planned; i < items.length; ) {
      if (ctx.signal?.aborted) throw new RunFailedError('aborted', 'the run was cancelled');
      const end = batchEnd(items, i, (it) => writer.knownAtPrime(it));
      const written = writer.writeEvents(items.slice(i, end));
      written.catch(() => undefined); // awaited below; not an unhandled rejection meanwhile
      i = end;
      if (previous) await finished(previous, client, progress);
      previous = { written, done: i };
    }
    if (previous) await finished(previous, client, progress);
    // The parser kept the occurrences overlapping the window: those are the ones that can have vanished.
    await writer.retire({ policy: p.retire, window: { ...p.window, rule: 'overlap' }, maxShare: p.maxRetireShare, force: p.forceRetire });
    throwIfSiteDown(client);
    // A venue/organizer created again in place of one the site lost leaves the events this run did
    // not write on the old id: not clean, so the next run does not skip the feed and relinks them.
    const clean = report.exitCode() === 0 && writer.linked.recreated === 0;
    if (clean && run.reuse && feed.groups) await run.reuse.record(feed.groups.recordable, feed.groups.reused, { window: p.window, items, writer, report, maxEntries: LEDGER_SNAPSHOT_MAX });
    if (!p.dryRun) await last.state.set(last.key, { ...done, processedAt: new Date().toISOString(), clean, ...(ctx.jobMark ? { job: ctx.jobMark } : {}) } satisfies FetchState);
  } finally {
    progress?.stop();
    report.countRequests(client.stats());
  }
}

/** Waits for a batch, then stops the run if the site is down, else reports progress. */
async function finished(batch: { written: Promise<void>; done: number }, client: CalendarClient, progress: WriteProgress): Promise<void> {
  await batch.written;
  throwIfSiteDown(client);
  await progress.note(batch.done);
}

/** Parse + normalize in the isolated parser; a whole-file refusal fails the run with the parser's code. */
async function parseFeed(body: Buffer, p: IcsImportParams, run: IsolatedParseRun, groups?: IcsNormalizeOptions['groups']) {
  const bytes = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  const opts = {
    sourceKey: p.sourceKey,
    sourceName: p.location,
    window: p.window,
    defaultTimezone: p.defaultTimezone,
    status: p.status,
    categoriesAs: p.categoriesAs,
    ...(p.maxOccurrencesPerFile !== undefined ? { maxOccurrencesPerFile: p.maxOccurrencesPerFile } : {}),
    ...(groups ? { groups } : {}),
  };
  try {
    return await normalizeIcsIsolated(bytes, opts, p.parseLimits, run);
  } catch (err) {
    if (err instanceof IcsError) throw new RunFailedError(err.code, err.message, { cause: err });
    if (run.signal?.aborted) throw new RunFailedError('aborted', 'the run was cancelled', { cause: err });
    throw err;
  }
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
  ledger: Ledger,
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
