import { randomUUID } from 'node:crypto';
import { CalendarClient, isNotFound, type EventRecord, type EventListQuery, type SiteFacts, type TermRecord } from '../api/index.ts';
import type { ResolvedSite } from '../config/sites.ts';
import { fingerprint } from '../model/fingerprint.ts';
import type { Language } from '../model/languages.ts';
import { copiedSlug, DRAFT_VERSION, eventDraftFromRecord, eventLinksFromRecord } from '../sources/site/normalize.ts';
import { RawTextReader } from '../sources/site/raw-text.ts';
import { dropUnsafeImages } from '../sources/images.ts';
import { SiteWriter, type OnEdit, type PlannedEvent } from '../write/writer.ts';
import type { Ledger, LedgerEntry } from '../write/ledger.ts';
import type { AdoptLinked } from '../write/linked.ts';
import { RunReport, type ReportJson } from '../report/report.ts';
import type { RetirePolicy } from '../write/retire.ts';
import { clientHooks, failedWith, ledgerFor, throwIfSiteDown, RunFailedError, type RunContext } from './context.ts';
import { checkSite, ledgerHeldBySite } from './site-check.ts';
import { BoundedTasks, mapConcurrent } from '../util/pool.ts';
import { allInOrder } from '../util/settle.ts';
import { listingRule, recordTimes, windowCovers, type ListingRule, type RunWindow } from '../model/run-window.ts';

export interface SyncParams {
  from: ResolvedSite;
  to: ResolvedSite;
  lang: Language;
  window: { from: Date; to: Date };
  retire: RetirePolicy;
  onEdit: OnEdit;
  /** Venues/organizers already on the target that calsync did not create. @defaultValue 'link' */
  adoptLinked?: AdoptLinked;
  categories?: (string | number)[];
  tags?: (string | number)[];
  dryRun: boolean;
  forceRetire?: boolean;
  maxRetireShare?: number;
  /** Source events per page (one unit of work for a worker). @defaultValue 50 */
  pageSize?: number;
  /** See SETTLED_MS; tests that edit a source within seconds set 0. */
  settledMs?: number;
}

/** One page of a sync's plan: events resolved to full target bodies, ready for any worker to write. */
export interface SyncPage {
  index: number;
  items: PlannedEvent[];
}

/**
 * Where a planner taken over after a crash resumes: the pages an earlier delivery stored (their
 * events are not planned again, and count as seen) and the first index free for new pages.
 */
export interface PlanResume {
  planned: Pick<PlannedEvent, 'slug' | 'origin'>[];
  nextIndex: number;
}

/** What the retirement at the end of a language needs from the plan. */
export interface SyncPlan {
  pages: number;
  seen: string[];
  cancelled: string[];
  /** How the source's listing read the window (src/model/run-window.ts): retirement covers the same events. */
  listing: ListingRule;
}

const fmt = (d: Date) => d.toISOString().slice(0, 19).replace('T', ' ');

/** The sync's `categories`/`tags` filters (source ids or slugs), as the source's listing applies them. */
function matchesFilters(r: EventRecord, p: Pick<SyncParams, 'categories' | 'tags'>): boolean {
  const has = (wanted: (string | number)[] | undefined, terms: Array<{ id: number; slug?: string }>) =>
    !wanted?.length || terms.some((t) => wanted.some((w) => String(w) === String(t.id) || w === t.slug));
  return has(p.categories, r.categories ?? []) && has(p.tags, r.tags ?? []);
}

/**
 * A window bound for the source's list filters. Real sites reject a date that is Unix time 0
 * (their validator takes strtotime()'s result as a boolean); one second later is the same
 * whole-day filter (`start_date` snaps to 00:00:00, `end_date` to 23:59:59 of its day).
 */
export function listBound(d: Date): string {
  return d.getTime() === 0 ? fmt(new Date(1000)) : fmt(d);
}

/**
 * `modified_utc` has one-second precision: an edit in the same second as our read would carry
 * the same value. Only values older than this (by our clock, allowing for skew) may skip rendering.
 */
const SETTLED_MS = 5 * 60_000;

/**
 * Source pages planned at once. Planning a page is mostly waiting (its raw text from the source,
 * its links on the target), so one at a time made the planner a serial chain of round trips.
 */
const PLAN_PAGES_IN_FLIGHT = 4;

/**
 * Events of the source's core list that its v1 listing left out, read one by one up to this many;
 * past it, the v1 list without the window first tells which of them are shown (not hidden).
 */
const UNLISTED_BY_ID = 100;

export function syncReport(p: SyncParams, ctx: RunContext, runId = ctx.runId ?? randomUUID()): RunReport {
  return new RunReport({ id: runId, kind: 'sync-site', source: p.from.name, site: p.to.name, language: p.lang, dryRun: p.dryRun });
}

/**
 * One language of a site-to-site sync, in three steps that may run in different jobs:
 * `plan` reads the source, resolves terms, venues and organizers on the target (writing those)
 * and hands out pages of planned events; `write` writes a page (unchanged events cost no request);
 * `retire` applies the retire policy to what the source no longer has.
 */
export class SiteSync {
  readonly p: SyncParams;
  readonly report: RunReport;
  readonly writer: SiteWriter;
  private readonly ctx: RunContext;
  private readonly sourceKey: string;
  private readonly ledger: Ledger;
  /** Source events the listing leaves out that were found not hidden, with their modified_gmt (see `unlistedHidden`). */
  private readonly unlisted: Ledger;
  /** What the opposite sync (target → source) copied into the source: never copied back. */
  private readonly reverseLedger: Ledger;
  /** The source's terms as the target's ids (TermResolver `memo`). */
  private readonly termMemo: Ledger;
  /** Source events left out because the opposite sync wrote them (see `ownRecords`). */
  private backCopies = 0;
  private readonly target: CalendarClient;
  private source?: CalendarClient;
  private rawSource?: CalendarClient;
  private rawText?: RawTextReader;
  /** Known once `plan` has read the source's REST index; a retire in another job gets it with the plan. */
  private listing?: ListingRule;

  constructor(p: SyncParams, ctx: RunContext, report: RunReport) {
    this.p = p;
    this.ctx = ctx;
    this.report = report;
    this.sourceKey = `sync-${p.from.key}`;
    this.target = new CalendarClient({ ...p.to.connection, language: p.lang, ...clientHooks(ctx, p.to.key) });
    this.ledger = ledgerFor(ctx, { site: p.to.key, language: p.lang, source: this.sourceKey });
    this.unlisted = ledgerFor(ctx, { site: p.to.key, language: p.lang, source: `${this.sourceKey}-unlisted` });
    this.reverseLedger = ledgerFor(ctx, { site: p.from.key, language: p.lang, source: `sync-${p.to.key}` });
    this.termMemo = ledgerFor(ctx, { site: p.to.key, language: p.lang, source: `${this.sourceKey}-terms` });
    this.writer = new SiteWriter({ client: this.target, ledger: this.ledger, report, sourceKey: this.sourceKey, lang: p.lang, dryRun: p.dryRun, onEdit: p.onEdit, adoptLinked: p.adoptLinked, createTerms: true, updateTerms: true, termMemo: this.termMemo, concurrency: p.to.concurrency, signal: ctx.signal, mark: ctx.jobMark });
  }

  /**
   * Reads the source window page by page; `onPage` receives each page once its links are resolved.
   * Given `resume`, the events of its pages are taken as planned and new pages follow its own.
   */
  async plan(onPage: (page: SyncPage) => Promise<void>, resume?: PlanResume): Promise<SyncPlan> {
    const { p, ctx } = this;
    // Both sites are checked while the source's listing starts (a queued run's sync-site checked
    // them a moment ago): no page is planned, so nothing is written, before the check has passed,
    // and when it fails its error is the run's, whatever the listing met meanwhile.
    const checked = this.checkSites().then(async (facts) => {
      await this.checkLedger();
      return (this.listing = listingRule(facts));
    });
    checked.catch(() => undefined);
    for (const it of resume?.planned ?? []) this.writer.admit(it.slug, it.origin);
    const resumed = new Set(resume?.planned.map((it) => it.slug));
    const source = (this.source ??= new CalendarClient({ ...p.from.connection, language: p.lang, ...clientHooks(ctx, p.from.key) }));
    // The same site through WordPress core's routes, for the text as typed (see raw-text.ts).
    this.rawSource ??= new CalendarClient({ ...p.from.connection, namespace: 'wp/v2', language: p.lang, ...clientHooks(ctx, p.from.key) });
    const rawText = (this.rawText ??= new RawTextReader(this.rawSource, p.lang));
    // The source's category tree, so parents can be created first on the target: read beside the
    // listing's first page instead of before it, and awaited by the pages planned.
    const categories = this.categoryTree(source);
    categories.catch(() => undefined);
    // Every upcoming event of the source, hidden ones too (see `unlistedHidden`): read beside the
    // listing, awaited after it.
    const upcoming = rawText.upcomingEvents(Math.min(4, p.from.concurrency));
    upcoming.catch(() => undefined);
    const pageSize = p.pageSize ?? 50;

    let pages = resume?.nextIndex ?? 0;
    let done = 0;
    // Pages are planned side by side (each waits on the source's raw text and, the first time,
    // on the target's terms/venues/organizers); the resolvers share one request per item.
    const tasks = new BoundedTasks(Math.min(PLAN_PAGES_IN_FLIGHT, p.from.concurrency));
    const flush = (listed: EventRecord[]): Promise<void> => {
      const records = resumed.size ? listed.filter((r) => !resumed.has(copiedSlug(p.from.key, r.slug, r.id))) : listed;
      if (records.length === 0) return Promise.resolve();
      const index = pages++;
      return tasks.run(async () => {
        await checked;
        const own = await this.ownRecords(records);
        await onPage({ index, items: await this.planRecords(await rawText.apply(own), await categories) });
        done += records.length;
        await ctx.onProgress?.({ phase: 'plan', done });
      });
    };
    try {
      let batch: EventRecord[] = [];
      const listed = new Set<number>();
      for await (const r of source.events.iterate(this.listQuery(pageSize), { lang: p.lang, concurrency: 4 })) {
        if (ctx.signal?.aborted) throw new RunFailedError('aborted', 'the run was cancelled');
        listed.add(r.id);
        batch.push(r);
        if (batch.length >= pageSize) {
          await flush(batch);
          batch = [];
        }
      }
      await flush(batch);
      // Every listed page is planned (and `seen`) before the hidden ones are looked for.
      await tasks.drain();
      await checked;
      // Events hidden from listings are not listed by the source: fetched by id.
      await flush(await this.hiddenRecords(source, upcoming, listed));
      await tasks.drain();
    } catch (err) {
      // No page is left planning (or saving) after the planner gave up.
      await tasks.drain().catch(() => undefined);
      throw (await checked.then(() => undefined, (e: unknown) => e)) ?? err;
    }
    if (this.backCopies > 0) {
      this.report.warn(`${this.backCopies} source event(s) are copies that the sync ${p.to.name} → ${p.from.name} wrote; they are not copied back (each pass of a two-way sync would otherwise copy every event back under a longer slug)`);
    }
    if (rawText.unavailable) {
      this.report.warn(`titles and texts were copied as the source renders them (typographic quotes and dashes), not as typed: ${rawText.unavailable}; the source's user needs to be able to edit events for the raw text`);
    }
    return { pages, seen: [...this.writer.seen], cancelled: [...this.writer.cancelled], listing: await checked };
  }

  /** The source's listing of the window, with the sync's filters. */
  private listQuery(pageSize: number): EventListQuery {
    const { p } = this;
    return {
      start_date: listBound(p.window.from),
      end_date: listBound(p.window.to),
      status: 'publish',
      per_page: Math.min(pageSize, 50),
      ...(p.categories?.length ? { categories: p.categories } : {}),
      ...(p.tags?.length ? { tags: p.tags } : {}),
    } as EventListQuery;
  }

  /**
   * Both sites answer, carry the calendar namespace and (the target) accepts our credentials:
   * checked side by side (two reads at once, not one after the other); the source's failure is
   * the one reported when both fail. The source's facts.
   */
  async checkSites(): Promise<SiteFacts> {
    const { p, ctx } = this;
    const [from] = await allInOrder([checkSite(p.from, { write: false }, ctx, this.report), checkSite(p.to, { write: !p.dryRun }, ctx, this.report)] as const);
    return from;
  }

  /**
   * The target still holds what this sync's ledger says it copied there (src/runs/site-check.ts);
   * when it lost it all (reset, restored from an older backup), the sync's ledgers of the target
   * are set aside before any page is planned, and every event is copied again.
   */
  private async checkLedger(): Promise<void> {
    const { p } = this;
    const { setAside } = await ledgerHeldBySite(p.to, { lang: p.lang, source: this.sourceKey, label: `the sync from ${p.from.name}` }, 'events', this.ctx, { dryRun: p.dryRun, report: this.report });
    if (!setAside) return;
    this.report.warn(setAside);
    if (!p.dryRun) await this.termMemo.forget(['categories', 'tags']);
  }

  private async categoryTree(source: CalendarClient): Promise<Map<number, TermRecord>> {
    const byId = new Map<number, TermRecord>();
    for await (const t of source.categories.iterate({ hide_empty: false, per_page: 50 }, { lang: this.p.lang })) byId.set(t.id, t);
    return byId;
  }

  /**
   * The source's own events: those the opposite sync (this target → this source) created there
   * are left out. Without this, syncing a → b and then b → a copied every event of a back into a
   * as `b-a-…`, and the next a → b copied those into b again, one slug prefix longer each pass
   * (found on two real TEC sites). They are known by the opposite sync's ledger (same Redis).
   */
  private async ownRecords(records: EventRecord[]): Promise<EventRecord[]> {
    const slugs = records.map((r) => r.slug).filter((s): s is string => typeof s === 'string' && s !== '');
    if (slugs.length === 0) return records;
    const theirs = await this.reverseLedger.getMany('events', slugs);
    if (theirs.size === 0) return records;
    const own = records.filter((r) => !(r.slug && theirs.has(r.slug)));
    this.backCopies += records.length - own.length;
    return own;
  }

  /**
   * Source records → planned events. An event the source has not modified since it was written,
   * whose terms, venue and organizers resolve to the same ids, is not rendered again.
   */
  private async planRecords(records: EventRecord[], categoriesById: Map<number, TermRecord>): Promise<PlannedEvent[]> {
    const { p } = this;
    const opts = { sourceSiteKey: p.from.key, sourceName: p.from.name, categoriesById };
    const slugOf = (r: EventRecord) => copiedSlug(p.from.key, r.slug, r.id);
    const known = await this.ledger.getMany('events', records.map(slugOf));
    const settledBefore = fmt(new Date(Date.now() - (p.settledMs ?? SETTLED_MS)));
    const srcMod = (r: EventRecord) => (r.modified_utc && r.modified_utc <= settledBefore ? `v${DRAFT_VERSION}:${r.modified_utc}` : undefined);
    const untouched: PlannedEvent[] = [];
    const render: EventRecord[] = [];
    for (const r of records) {
      const entry = known.get(slugOf(r));
      const mod = srcMod(r);
      if (entry?.srcMod === undefined || entry.srcMod !== mod || entry.links === undefined) {
        render.push(r);
        continue;
      }
      const { ids } = await this.writer.resolveLinks(eventLinksFromRecord(r, opts));
      const origin = { source: p.from.name, ref: String(r.id) };
      if (fingerprint(ids) !== entry.links) render.push(r);
      else if (this.writer.admit(slugOf(r), origin)) untouched.push({ slug: slugOf(r), origin, untouched: entry.id });
    }
    const byRef = new Map(render.map((r) => [String(r.id), r]));
    const drafts = render.map((r) => eventDraftFromRecord(r, opts));
    // The source site's own media is trusted as its configuration is; any other image host is not.
    await dropUnsafeImages(drafts, { trustedOrigins: [p.from.connection.restRoot] }, (w) => this.report.warn(w));
    const planned = await this.writer.plan(drafts, (d) => {
      const r = d.origin.ref !== undefined ? byRef.get(d.origin.ref) : undefined;
      return { srcMod: r ? srcMod(r) : undefined };
    });
    return [...untouched, ...planned];
  }

  /**
   * The source's events hidden from listings, in the window: those copied before (their ledger
   * entries keep the source id) and those never copied (`unlistedHidden`).
   */
  private async hiddenRecords(source: CalendarClient, upcoming: Promise<Map<number, string> | undefined>, listed: Set<number>): Promise<EventRecord[]> {
    const out: EventRecord[] = [];
    const copied = new Set<number>();
    for await (const [slug, e] of this.ledger.entries('events')) {
      if (e.src) copied.add(Number(e.src));
      if (this.writer.seen.has(slug) || this.writer.cancelled.has(slug) || !e.src) continue;
      // Only those that were in this window when written: one request each, so keep them few.
      if (!windowCovers(this.window(), e)) continue;
      const r = await this.sourceEvent(source, Number(e.src));
      if (r && r.status === 'publish' && r.hide_from_listings && windowCovers(this.window(), recordTimes(r))) out.push(r);
    }
    out.push(...(await this.unlistedHidden(source, await upcoming, listed, copied)));
    return out;
  }

  /**
   * Hidden events never copied. The v1 listing leaves them out, and only copied ones were looked
   * for by id, so an event hidden from listings before its first sync was never copied (found on
   * a real TEC site). WordPress core's list of the source's events has them: each event there that
   * was neither listed nor copied is read by id, and one found not hidden is remembered with its
   * `modified_gmt` (`unlisted`), so later runs read it again only once it has changed.
   */
  private async unlistedHidden(source: CalendarClient, all: Map<number, string> | undefined, listed: Set<number>, copied: Set<number>): Promise<EventRecord[]> {
    if (!all) return [];
    const ids = [...all.keys()].filter((id) => !listed.has(id) && !copied.has(id));
    const memo = ids.length ? await this.unlisted.getMany('events', ids.map(String)) : new Map<string, LedgerEntry>();
    let unread = ids.filter((id) => memo.get(String(id))?.fp !== (all.get(id) ?? ''));
    const shown = (id: number) => (this.p.dryRun ? Promise.resolve() : this.unlisted.set('events', String(id), { fp: all.get(id) ?? '', id, at: new Date().toISOString() }));
    // Many (a first sync whose window is narrower than the source's upcoming events): those the v1
    // list shows without the window are not hidden, a page of 50 per request instead of one each.
    // Stored together (the ledger groups its writes into one flush; one await each waited for a flush each).
    const remembered: Promise<void>[] = [];
    if (unread.length > UNLISTED_BY_ID) {
      const visible = await this.upcomingListed(source);
      for (const id of unread) if (visible.has(id)) remembered.push(shown(id));
      unread = unread.filter((id) => !visible.has(id));
    }
    const records = await mapConcurrent(unread, Math.min(4, this.p.from.concurrency), (id) => this.sourceEvent(source, id));
    const out: EventRecord[] = [];
    for (const [i, r] of records.entries()) {
      if (!r || r.status !== 'publish') continue;
      if (!r.hide_from_listings) remembered.push(shown(unread[i]!));
      else if (windowCovers(this.window(), recordTimes(r)) && matchesFilters(r, this.p)) out.push(r);
    }
    await Promise.all(remembered);
    return out;
  }

  /** Ids of every upcoming published event the source's v1 list shows, whatever the window. */
  private async upcomingListed(source: CalendarClient): Promise<Set<number>> {
    const ids = new Set<number>();
    // Without end_date the list stops two years ahead (TEC's default); core's list does not.
    const query = { start_date: listBound(new Date(Date.now() - 86_400_000)), end_date: '2100-01-01 00:00:00', status: 'publish', per_page: 50 } as EventListQuery;
    for await (const r of source.events.iterate(query, { lang: this.p.lang, concurrency: Math.min(4, this.p.from.concurrency) })) ids.add(r.id);
    return ids;
  }

  /** One source event by id; undefined when it is gone (404/403/410: retirement handles it). */
  private async sourceEvent(source: CalendarClient, id: number): Promise<EventRecord | undefined> {
    try {
      return await source.events.get(id, { lang: this.p.lang });
    } catch (err) {
      if (!isNotFound(err) && !(err as { status?: number }).status) throw err;
      return undefined;
    }
  }

  /**
   * The window as the source's listing applies it (`plan` reads the source with start_date/end_date).
   * Not known (a plan stored before it was kept): UTC days, the rule retirement used before.
   */
  private window(listing = this.listing): RunWindow {
    return { ...this.p.window, rule: listing ?? 'utc-days' };
  }

  async write(page: SyncPage): Promise<void> {
    await this.writer.writePlanned(page.items);
    throwIfSiteDown(this.target);
  }

  /** Retires what vanished from (or was trashed at) the source; `plan` is given when another job planned. */
  async retire(plan?: Pick<SyncPlan, 'seen' | 'cancelled'> & Partial<Pick<SyncPlan, 'listing'>>): Promise<void> {
    for (const s of plan?.seen ?? []) this.writer.seen.add(s);
    for (const s of plan?.cancelled ?? []) this.writer.cancelled.add(s);
    await this.writer.retire({ policy: this.p.retire, window: this.window(plan?.listing ?? this.listing), maxShare: this.p.maxRetireShare, force: this.p.forceRetire });
    throwIfSiteDown(this.target);
  }

  async close(): Promise<void> {
    for (const c of [this.source, this.rawSource]) {
      if (!c) continue;
      this.report.countRequests(c.stats());
      await c.close();
    }
    this.report.countRequests(this.target.stats());
    await this.target.close();
  }
}

/**
 * One language of a sync in this process (the CLI): plan, writing each page as soon as it is
 * planned, then retire. The queue runs the same steps as a flow of jobs (jobs/sync-site.ts plans,
 * jobs/sync-page.ts, sync-language.ts and sync-finish.ts do the rest).
 */
export async function runSiteSync(p: SyncParams, ctx: RunContext = {}): Promise<ReportJson> {
  const report = syncReport(p, ctx);
  const sync = new SiteSync(p, ctx, report);
  try {
    let written = 0;
    const plan = await sync.plan(async (page) => {
      await sync.write(page);
      written += page.items.length;
      await ctx.onProgress?.({ phase: 'sync', done: written });
    });
    await ctx.onProgress?.({ phase: 'sync', done: written, total: written });
    await sync.retire(plan);
  } catch (err) {
    throw failedWith(err, report);
  } finally {
    await sync.close();
  }
  return report.finish();
}

/** The report of a site pair: its languages' reports folded into one (RunReport.fold, the one fold). */
export function syncPairReport(reports: ReportJson[], meta: { id: string; from: string; to: string; dryRun: boolean; startedAt?: string }): ReportJson {
  const language = reports.map((r) => r.run.language).join(',');
  return RunReport.fold({ id: meta.id, kind: 'sync-site', source: meta.from, site: meta.to, language, dryRun: meta.dryRun, startedAt: meta.startedAt }, reports).finish();
}

/** Every language of a sync in this process (the CLI), one after the other, in one report. */
export async function runSiteSyncAll(list: SyncParams[], ctx: RunContext = {}): Promise<ReportJson> {
  const first = list[0];
  if (!first) throw new RunFailedError('sync-no-languages', 'the sync has no language to copy');
  if (list.length === 1) return runSiteSync(first, ctx);
  const reports: ReportJson[] = [];
  for (const p of list) reports.push(await runSiteSync(p, ctx));
  return syncPairReport(reports, { id: ctx.runId ?? `sync-${Date.now()}`, from: first.from.name, to: first.to.name, dryRun: first.dryRun });
}
