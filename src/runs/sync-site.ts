import { randomUUID } from 'node:crypto';
import { CalendarClient, isNotFound, type EventRecord, type EventListQuery, type TermRecord } from '../api/index.ts';
import type { ResolvedSite } from '../config/sites.ts';
import type { EventDraft, Normalized } from '../model/draft.ts';
import type { Language } from '../model/languages.ts';
import { eventDraftFromRecord } from '../sources/site/normalize.ts';
import { SiteWriter, type OnEdit } from '../sync/events.ts';
import { RunReport, type ReportJson } from '../sync/report.ts';
import type { RetirePolicy } from '../sync/retire.ts';
import { clientHooks, ledgerFor, RunFailedError, type RunContext } from './context.ts';

export interface SyncParams {
  from: ResolvedSite;
  to: ResolvedSite;
  lang: Language;
  window: { from: Date; to: Date };
  retire: RetirePolicy;
  onEdit: OnEdit;
  categories?: (string | number)[];
  tags?: (string | number)[];
  dryRun: boolean;
  forceRetire?: boolean;
  maxRetireShare?: number;
  /** Source events per batch (one page). @defaultValue 50 */
  pageSize?: number;
}

const fmt = (d: Date) => d.toISOString().slice(0, 19).replace('T', ' ');

/**
 * Copies one site's events (with their venues, organizers, categories and tags) into another for
 * one language: pages of source events → drafts with stable target slugs → the shared writer
 * (unchanged ones cost no request) → retire what vanished or was trashed at the source.
 */
export async function runSiteSync(p: SyncParams, ctx: RunContext = {}): Promise<ReportJson> {
  const sourceKey = `sync-${p.from.key}`;
  const report = new RunReport({ id: ctx.runId ?? randomUUID(), kind: 'sync-site', source: p.from.name, site: p.to.name, language: p.lang, dryRun: p.dryRun });
  const source = new CalendarClient({ ...p.from.connection, language: p.lang, ...clientHooks(ctx, p.from.key) });
  const target = new CalendarClient({ ...p.to.connection, language: p.lang, ...clientHooks(ctx, p.to.key) });
  const ledger = ledgerFor(ctx, { site: p.to.key, language: p.lang, source: sourceKey });
  const toDraft = (r: EventRecord, categoriesById: Map<number, TermRecord>): Normalized<EventDraft> =>
    eventDraftFromRecord(r, { sourceSiteKey: p.from.key, sourceName: p.from.name, categoriesById });
  try {
    // The source's category tree, so parents can be created first on the target.
    const categoriesById = new Map<number, TermRecord>();
    for await (const t of source.categories.iterate({ hide_empty: false, per_page: 50 }, { lang: p.lang })) categoriesById.set(t.id, t);

    const writer = new SiteWriter({ client: target, ledger, report, sourceKey, lang: p.lang, dryRun: p.dryRun, onEdit: p.onEdit, createTerms: true, updateTerms: true, concurrency: p.to.concurrency, signal: ctx.signal });
    const query: EventListQuery = {
      start_date: fmt(p.window.from),
      end_date: fmt(p.window.to),
      status: 'publish',
      per_page: p.pageSize ?? 50,
      ...(p.categories?.length ? { categories: p.categories } : {}),
      ...(p.tags?.length ? { tags: p.tags } : {}),
    } as EventListQuery;
    let batch: Normalized<EventDraft>[] = [];
    let done = 0;
    for await (const r of source.events.iterate(query, { lang: p.lang, concurrency: 4 })) {
      if (ctx.signal?.aborted) throw new RunFailedError('aborted', 'the run was cancelled');
      batch.push(toDraft(r, categoriesById));
      if (batch.length >= (p.pageSize ?? 50)) {
        await writer.writeEvents(batch);
        done += batch.length;
        batch = [];
        await ctx.onProgress?.({ phase: 'sync', done });
      }
    }
    if (batch.length) await writer.writeEvents(batch);
    done += batch.length;

    // Events hidden from listings are not listed by the source: fetch the ones we copied before by id.
    const hidden: Normalized<EventDraft>[] = [];
    for await (const [slug, e] of ledger.entries('events')) {
      if (writer.seen.has(slug) || !e.src) continue;
      try {
        const r = await source.events.get(Number(e.src), { lang: p.lang });
        const inWindow = r.start_date >= fmt(p.window.from).slice(0, 10) && r.end_date <= fmt(p.window.to);
        if (r.status === 'publish' && r.hide_from_listings && inWindow) hidden.push(toDraft(r, categoriesById));
      } catch (err) {
        if (!isNotFound(err) && !(err as { status?: number }).status) throw err;
      }
    }
    if (hidden.length) await writer.writeEvents(hidden);
    await ctx.onProgress?.({ phase: 'sync', done: done + hidden.length, total: done + hidden.length });

    await writer.retire({ policy: p.retire, window: p.window, maxShare: p.maxRetireShare, force: p.forceRetire });
  } finally {
    report.countRequests(source.stats());
    await source.close();
    report.countRequests(target.stats());
    await target.close();
  }
  return report.finish();
}
