import type { CalendarClient } from '../api/index.ts';
import { ApiError } from '../api/index.ts';
import type { Language } from '../model/languages.ts';
import type { TermDraft } from '../model/draft.ts';
import { slugify } from '../model/identity.ts';
import { nameKey } from '../util/entities.ts';
import { memoized } from '../util/memo.ts';
import { fingerprint } from '../model/fingerprint.ts';
import type { Ledger } from './ledger.ts';
import type { RunReport } from '../report/report.ts';
import type { TermBody } from './body.ts';
import { Settled, UNSETTLED } from './settled.ts';
import { mapConcurrent } from '../util/pool.ts';
import { earlierWrite } from './job-mark.ts';

export type Taxonomy = 'categories' | 'tags';

/** Term names come back HTML-encoded (`&amp;`); compare on the decoded, case-folded text. */
export const termKey = nameKey;

/** Every event of a feed names its few terms again (resolvedNow, per event of a re-import): each name is folded once. */
const cachedTermKey = memoized(termKey);

/**
 * Venue and organizer names come back texturized (`Tom’s “Bar” — A &#038; B` for what was typed
 * as `Tom's "Bar" -- A & B`): compare with the typography folded back to plain ASCII.
 */
export function sameSiteName(siteName: string, typed: string): boolean {
  const fold = (s: string) => termKey(s).replace(/[\u2018\u2019]/g, "'").replace(/[\u201c\u201d]/g, '"').replace(/\s*\u2014\s*/g, ' -- ').replace(/\u2013/g, '--').replace(/\u2026/g, '...');
  return fold(siteName) === fold(typed);
}

/**
 * Bounds on the terms a source can make a run create. Each new term costs a request, and a feed
 * names terms for nothing: one VEVENT with 9,000 CATEGORIES in a 90 KB feed sent 9,007 requests.
 * Real feeds name a few per event (at most 3 in the test corpus), so the bounds are far above that:
 * - per event and taxonomy, the first `perEvent` terms are kept, and a name longer than the site's
 *   term name column (`wp_terms.name`, 200 characters) is left out; the event is written with the
 *   rest and its report item says what was left out;
 * - per run (one writer: an import, a CSV chunk job, a sync language), at most `newPerRun` terms
 *   are created; each one past it is a failed item, and its events are written without it. The
 *   next run creates the next ones.
 */
export const TERM_LIMITS = { perEvent: 50, nameLength: 200, newPerRun: 1000 } as const;

const fits = (d: TermDraft) => d.name.length <= TERM_LIMITS.nameLength;

/** An event's terms of one taxonomy within the per-event bounds (the same array when all fit). */
export function keptTerms(drafts: readonly TermDraft[]): readonly TermDraft[] {
  if (drafts.length <= TERM_LIMITS.perEvent && drafts.every(fits)) return drafts;
  return drafts.filter(fits).slice(0, TERM_LIMITS.perEvent);
}

/** What keptTerms leaves out of an event's terms, as a note for its report item. */
export function droppedTermsNote(tax: Taxonomy, drafts: readonly TermDraft[]): string | undefined {
  const kept = keptTerms(drafts);
  if (kept === drafts) return undefined;
  const long = drafts.length - drafts.filter(fits).length;
  const over = drafts.length - long - kept.length;
  const what = [...(over ? [`${over} beyond the first ${TERM_LIMITS.perEvent}`] : []), ...(long ? [`${long} longer than ${TERM_LIMITS.nameLength} characters`] : [])];
  return `written without ${tax}: ${what.join(', ')} (the limits per event)`;
}

/** A description worth sending: the site refuses `""` (and PHP-empty `"0"`) with a 400. */
function termText(s: string | undefined): string | undefined {
  return s !== undefined && s.trim() !== '' && s !== '0' ? s : undefined;
}

interface TermInfo {
  id: number;
  name: string;
  slug: string;
  description?: string;
  parent?: number;
}

interface TermIndex {
  bySlug: Map<string, number>;
  byName: Map<string, number>;
  byId: Map<number, TermInfo>;
}

export interface TermResolverOptions {
  lang?: Language;
  createTerms: boolean;
  dryRun: boolean;
  report: RunReport;
  /** Bring name/description/parent of terms matched by slug in line with the draft (sync). */
  updateTerms?: boolean;
  /**
   * Source term (by its slug) → target id, with the fingerprint of the term as last written: a
   * sync whose source terms did not change takes the id from here when the target's listing still
   * has it, without comparing the term's fields again.
   */
  memo?: Ledger;
  /**
   * The run's ledger and its job's mark (src/write/job-mark.ts): each term the job creates is recorded
   * there (its `categories`/`tags` kinds, by the term's site id), so a delivery of the same job taking
   * over from a killed worker reports the terms that delivery created as created, not unchanged.
   */
  job?: { ledger: Ledger; mark: string };
}

/**
 * Resolves category/tag names to ids on the target site: matched by slug, then by name; created
 * when missing (unless createTerms is off). Only ids are ever sent to the site, because a name
 * in an event body can create a bogus term and an unknown id is silently dropped.
 * The site's terms are listed once per run and every outcome is cached, so each term costs at
 * most one request per run and is reported once.
 */
export class TermResolver {
  private readonly client: CalendarClient;
  private readonly opts: TermResolverOptions;
  private readonly index: Partial<Record<Taxonomy, Promise<TermIndex>>> = {};
  private readonly pending = new Settled<number | undefined>();
  private dryRunIds = -1;
  /** Site ids of the terms an earlier delivery of this job created, per taxonomy (read once, with a job). */
  private readonly earlierCreated: Partial<Record<Taxonomy, Promise<Set<number>>>> = {};
  /** Terms this run has created or tried to (dry runs included, so they predict the limit). */
  private creations = 0;

  constructor(client: CalendarClient, opts: TermResolverOptions) {
    this.client = client;
    this.opts = opts;
  }

  private load(tax: Taxonomy): Promise<TermIndex> {
    this.index[tax] ??= (async () => {
      const idx: TermIndex = { bySlug: new Map(), byName: new Map(), byId: new Map() };
      const res = tax === 'categories' ? this.client.categories : this.client.tags;
      for await (const t of res.iterate({ hide_empty: false, per_page: 50 }, { lang: this.opts.lang })) {
        idx.bySlug.set(t.slug, t.id);
        if (!idx.byName.has(termKey(t.name))) idx.byName.set(termKey(t.name), t.id);
        idx.byId.set(t.id, { id: t.id, name: t.name, slug: t.slug, description: t.description, parent: (t as { parent?: number }).parent });
      }
      return idx;
    })();
    return this.index[tax];
  }

  /**
   * Starts listing these taxonomies now (SiteWriter.prime: beside the run's other listings).
   * Not awaited for its outcome: a failed listing fails the terms' resolution, as it would have.
   */
  async preload(taxonomies: readonly Taxonomy[]): Promise<void> {
    await Promise.all(taxonomies.map((tax) => this.load(tax).catch(() => undefined)));
  }

  /** An event's term ids, within the per-event bounds (keptTerms). */
  async resolveAll(tax: Taxonomy, drafts: readonly TermDraft[]): Promise<number[]> {
    const ids: number[] = [];
    for (const d of keptTerms(drafts)) {
      const id = await this.resolve(tax, d);
      if (id !== undefined) ids.push(id);
    }
    return [...new Set(ids)];
  }

  /**
   * Resolves these terms side by side, `concurrency` at a time, each distinct term once. An event
   * resolves its own terms one after another (resolveAll), so planning a batch event by event
   * would create its new terms in rounds (an event's second category only after its first), each
   * a round trip before any event of the batch can be written. Failures are left to resolveAll,
   * which reports them per event as before.
   */
  async resolveEach(wanted: ReadonlyArray<readonly [Taxonomy, TermDraft]>, concurrency: number): Promise<void> {
    const distinct = new Map<string, readonly [Taxonomy, TermDraft]>();
    for (const w of wanted) {
      const key = this.keyOf(w[0], w[1]);
      if (!distinct.has(key)) distinct.set(key, w);
    }
    await mapConcurrent([...distinct.values()], concurrency, ([tax, d]) => this.resolve(tax, d).catch(() => undefined));
  }

  resolve(tax: Taxonomy, d: TermDraft): Promise<number | undefined> {
    return this.pending.get(this.keyOf(tax, d), () => (this.opts.memo && d.slug ? this.resolveMemo(tax, d, d.slug, this.opts.memo) : this.resolveOnce(tax, d)));
  }

  private keyOf(tax: Taxonomy, d: TermDraft): string {
    return `${tax}\u0000${d.slug ?? ''}\u0000${cachedTermKey(d.name)}`;
  }

  /** The ids of terms already resolved in this run, as resolveAll gives them; UNSETTLED if any is not yet. */
  resolvedNow(tax: Taxonomy, drafts: readonly TermDraft[]): number[] | typeof UNSETTLED {
    const ids: number[] = [];
    for (const d of keptTerms(drafts)) {
      const id = this.pending.now(this.keyOf(tax, d));
      if (id === UNSETTLED) return UNSETTLED;
      if (id !== undefined) ids.push(id);
    }
    return [...new Set(ids)];
  }

  private async resolveMemo(tax: Taxonomy, d: TermDraft, slug: string, memo: Ledger): Promise<number | undefined> {
    const fp = fingerprint(d);
    const known = (await memo.getMany(tax, [slug])).get(slug);
    // The id is checked against the target's listing: a term deleted there is dropped from every
    // event naming it, and an event written with its id would silently go without it.
    if (known?.fp === fp && (await this.load(tax)).byId.has(known.id)) {
      await this.reportFound(tax, slug, known.id);
      return known.id;
    }
    const failuresBefore = this.opts.report.counts[tax].failed;
    const id = await this.resolveOnce(tax, d);
    if (id !== undefined && id > 0 && !this.opts.dryRun && this.opts.report.counts[tax].failed === failuresBefore) await memo.set(tax, slug, { fp, id, at: new Date().toISOString() });
    return id;
  }

  private async parentOf(tax: Taxonomy, d: TermDraft): Promise<number | undefined> {
    if (tax !== 'categories' || !d.parent) return undefined;
    return this.resolve('categories', typeof d.parent === 'string' ? { name: d.parent } : d.parent);
  }

  /**
   * A term matched by slug whose name, description or parent changed at the source. The site
   * refuses `description: ""` (400), so an empty description is never sent: the key is left out,
   * which keeps the target's text. A description emptied at the source therefore stays on the
   * target (reported, not retried on every run).
   */
  private async refresh(tax: Taxonomy, idx: TermIndex, id: number, d: TermDraft): Promise<number> {
    const cur = idx.byId.get(id);
    const parent = await this.parentOf(tax, d);
    const description = termText(d.description);
    const changed =
      cur !== undefined &&
      (termKey(cur.name) !== termKey(d.name) || (description !== undefined && description !== (cur.description ?? '')) || (tax === 'categories' && parent !== undefined && parent !== (cur.parent ?? 0)));
    const stale = description === undefined && termText(cur?.description) !== undefined ? 'the source has no description; the site cannot clear one, so the target keeps its own' : undefined;
    if (!changed) {
      this.opts.report.add({ kind: tax, slug: d.slug, outcome: 'unchanged', siteId: id, ...(stale ? { reason: stale } : {}) });
      return id;
    }
    if (this.opts.dryRun) {
      this.opts.report.add({ kind: tax, slug: d.slug, outcome: 'updated', siteId: id, reason: 'would be updated (dry run)' });
      return id;
    }
    try {
      const res = tax === 'categories' ? this.client.categories : this.client.tags;
      const body: TermBody = { name: d.name };
      if (description !== undefined) body.description = description;
      // Only set, never cleared: the API takes no parent 0 (moving a category to the top level is left to the site).
      if (tax === 'categories' && parent !== undefined && parent > 0) body.parent = parent;
      await res.update(id, body, { lang: this.opts.lang });
      this.opts.report.add({ kind: tax, slug: d.slug, outcome: 'updated', siteId: id, ...(stale ? { reason: stale } : {}) });
    } catch (err) {
      this.opts.report.add({ kind: tax, slug: d.slug, outcome: 'failed', siteId: id, reason: `could not update "${d.name}": ${(err as Error).message}` });
    }
    return id;
  }

  /** A term the site already has: unchanged, or created when an earlier delivery of this job created it. */
  private async reportFound(tax: Taxonomy, slug: string, id: number): Promise<void> {
    const earlier = await this.createdBefore(tax, id);
    this.opts.report.add({ kind: tax, slug, siteId: id, ...(earlier ? { outcome: 'created', earlier: true } : { outcome: 'unchanged' }) });
  }

  /** Whether an earlier delivery of this run's job created the term with this site id (TermResolverOptions `job`). */
  private async createdBefore(tax: Taxonomy, id: number): Promise<boolean> {
    const job = this.opts.job;
    if (!job) return false;
    this.earlierCreated[tax] ??= (async () => {
      const ids = new Set<number>();
      for await (const [, e] of job.ledger.entries(tax)) if (earlierWrite(e, job.mark) === 'created') ids.add(e.id);
      return ids;
    })();
    return (await this.earlierCreated[tax]).has(id);
  }

  /** The id a term of this name has on the site now (the run's listing), without creating or updating anything. */
  async peek(tax: Taxonomy, d: TermDraft): Promise<number | undefined> {
    return this.listed(await this.load(tax), d);
  }

  private listed(idx: TermIndex, d: TermDraft): number | undefined {
    return (d.slug ? idx.bySlug.get(d.slug) : undefined) ?? idx.byName.get(termKey(d.name)) ?? idx.bySlug.get(slugify(d.name, 200));
  }

  private async resolveOnce(tax: Taxonomy, d: TermDraft): Promise<number | undefined> {
    const idx = await this.load(tax);
    const found = this.listed(idx, d);
    const label = d.slug ?? d.name;
    if (found !== undefined) {
      if (this.opts.updateTerms && d.slug && idx.bySlug.get(d.slug) === found && !(await this.createdBefore(tax, found))) return this.refresh(tax, idx, found, d);
      await this.reportFound(tax, label, found);
      return found;
    }
    if (!this.opts.createTerms) {
      this.opts.report.add({ kind: tax, slug: label, outcome: 'skipped', reason: `"${d.name}" does not exist on the site and term creation is off (--no-create-terms); events are written without it` });
      return undefined;
    }
    if (this.creations >= TERM_LIMITS.newPerRun) {
      const reason = `not created: this run already created ${TERM_LIMITS.newPerRun} categories and tags, the most one run may; events are written without "${d.name}", and the next run creates it`;
      this.opts.report.add({ kind: tax, slug: label, outcome: 'failed', reason });
      return undefined;
    }
    this.creations++;
    const parent = await this.parentOf(tax, d);
    if (this.opts.dryRun) {
      const id = this.dryRunIds--;
      this.opts.report.add({ kind: tax, slug: label, outcome: 'created', reason: 'would be created (dry run)' });
      return id;
    }
    try {
      const res = tax === 'categories' ? this.client.categories : this.client.tags;
      const body: TermBody = { name: d.name };
      if (d.slug) body.slug = d.slug;
      const description = termText(d.description);
      if (description !== undefined) body.description = description;
      if (parent !== undefined && parent > 0) body.parent = parent;
      const created = await res.create(body, { lang: this.opts.lang });
      idx.bySlug.set(created.slug, created.id);
      idx.byName.set(termKey(created.name), created.id);
      this.opts.report.add({ kind: tax, slug: created.slug, outcome: 'created', siteId: created.id });
      const job = this.opts.job;
      if (job) await job.ledger.set(tax, String(created.id), { fp: fingerprint(d), id: created.id, run: job.mark, new: true, at: new Date().toISOString() });
      return created.id;
    } catch (err) {
      // Another worker created it between our listing and our create.
      const termId = err instanceof ApiError && err.code === 'term_exists' ? (err.data as { term_id?: number } | undefined)?.term_id : undefined;
      if (typeof termId === 'number') {
        idx.byName.set(termKey(d.name), termId);
        this.opts.report.add({ kind: tax, slug: label, outcome: 'unchanged', siteId: termId, reason: 'created concurrently by another run' });
        return termId;
      }
      this.opts.report.add({ kind: tax, slug: label, outcome: 'failed', reason: `could not create ${tax === 'categories' ? 'category' : 'tag'} "${d.name}": ${(err as Error).message}` });
      return undefined;
    }
  }
}
