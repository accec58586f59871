import type { CalendarClient } from '../api/index.ts';
import type { Language } from '../model/languages.ts';
import { nameKey } from '../util/entities.ts';
import { linkedNoun, linkedRoute } from './linked-writes.ts';

/**
 * What the target site already holds, learned from list pages (50 items a request) instead of one
 * by-slug lookup per item. It only ever saves requests; it never decides alone that a write is
 * safe: the writers still verify the slug every create returns, and fall back to the by-slug
 * update when a create collides with a record the lists did not show (an event hidden from
 * listings, one whose dates the site refused, one written by another run after the listing).
 *
 * Listings are bounded: in pages (never more than the lookups they replace: a tenth of the events
 * about to be written, one per venue/organizer) and in time (`timeoutMs`); over either bound, or on any listing error, the index
 * answers `unknown` and the writers use their lookups as before.
 */

/** `present`: listed on the site; `absent`: not listed although its dates were covered; `unknown`: not covered. */
export type Presence = 'present' | 'absent' | 'unknown';

/** A day range `YYYY-MM-DD` (inclusive) of event dates. */
export interface DaySpan {
  from: string;
  to: string;
}

export interface LinkedEntry {
  id: number;
  slug: string;
  name: string;
  status?: string;
}

export interface SiteIndexOptions {
  lang?: Language;
  signal?: AbortSignal;
  /** Pages fetched at once. @defaultValue 4 */
  concurrency?: number;
  /** Time one listing may take before the index gives up on it. @defaultValue 30000 */
  timeoutMs?: number;
}

/** Statuses a write can collide with; `any` is refused by the site (trash holds `__trashed` slugs). */
export const LISTED_STATUSES = ['publish', 'future', 'draft', 'pending', 'private'];
/** Real TEC rejects 1970-01-01 (timestamp 0) in list windows. */
const EARLIEST = '1970-01-02';
const LATEST = '2100-12-31';
/**
 * Event dates are wall times in each event's own zone while the list filter works in the site's
 * zone on whole days: margins of two days keep every listed event inside the window it was asked for.
 */
const MARGIN_DAYS = 2;

/** Pages worth fetching to replace `wanted` lookups: a page answers for 50 items, a lookup for one. */
export function pagesFor(wanted: number): number {
  return Math.max(2, Math.ceil(wanted / 10));
}

export function shiftDay(day: string, days: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** The day span of events given their local `YYYY-MM-DD HH:MM:SS` start and end. */
export function spanOf(events: ReadonlyArray<{ start_date: string; end_date: string }>): DaySpan | undefined {
  let from: string | undefined;
  let to: string | undefined;
  for (const e of events) {
    const s = e.start_date.slice(0, 10);
    const t = e.end_date.slice(0, 10) < s ? s : e.end_date.slice(0, 10);
    if (from === undefined || s < from) from = s;
    if (to === undefined || t > to) to = t;
  }
  return from !== undefined && to !== undefined ? { from, to } : undefined;
}

export class SiteIndex {
  private readonly client: CalendarClient;
  private readonly opts: SiteIndexOptions;
  private readonly eventSlugs = new Set<string>();
  /** Day spans whose every listable event is in `eventSlugs`. */
  private readonly covered: DaySpan[] = [];
  private eventQueue: Promise<unknown> = Promise.resolve();
  private readonly linkedIndex: Partial<Record<'venues' | 'organizers', Promise<Map<string, LinkedEntry> | undefined>>> = {};
  private readonly linkedDone: Partial<Record<'venues' | 'organizers', Map<string, LinkedEntry>>> = {};
  /** Kinds whose listing read every page but not every record (see listAll). */
  private readonly linkedPartial = new Set<'venues' | 'organizers'>();
  /** Requests spent on listings (for reports and benchmarks). */
  pages = 0;

  constructor(client: CalendarClient, opts: SiteIndexOptions = {}) {
    this.client = client;
    this.opts = opts;
  }

  /**
   * Lists the events of `span` (widened by the margins) unless it is already covered, when
   * `wanted` items without a ledger entry are about to be written there. Calls are serialized so
   * concurrent batches never list the same window twice.
   */
  coverEvents(span: DaySpan | undefined, wanted: number): Promise<void> {
    if (!span || wanted === 0 || this.isCovered(span)) return Promise.resolve();
    const next = this.eventQueue.then(() => (this.isCovered(span) ? undefined : this.listEvents(span, wanted)));
    this.eventQueue = next.catch(() => undefined);
    return next;
  }

  /** Whether the site holds an event with this slug, as far as the listings tell. */
  eventPresence(slug: string, start_date: string, end_date: string): Presence {
    if (this.eventSlugs.has(slug)) return 'present';
    const span = spanOf([{ start_date, end_date }]);
    return span && this.isCovered(span) ? 'absent' : 'unknown';
  }

  /** Records a slug this run wrote, so later batches see it. */
  noteEvent(slug: string): void {
    this.eventSlugs.add(slug);
  }

  private isCovered(span: DaySpan): boolean {
    return this.covered.some((c) => c.from <= span.from && c.to >= span.to);
  }

  private async listEvents(span: DaySpan, wanted: number): Promise<void> {
    const listed: DaySpan = {
      from: maxDay(shiftDay(span.from, -MARGIN_DAYS), EARLIEST),
      to: minDay(shiftDay(span.to, MARGIN_DAYS), LATEST),
    };
    const query = { start_date: listed.from, end_date: listed.to, status: LISTED_STATUSES };
    const read = await this.listAll(
      (page, signal) => this.client.events.list({ ...query, page, per_page: 50 }, { lang: this.opts.lang, signal }),
      (signal) => this.client.events.iterate({ ...query, page: 2, per_page: 50 }, { lang: this.opts.lang, signal, concurrency: this.opts.concurrency ?? 4 }),
      pagesFor(wanted),
      (e) => this.eventSlugs.add(e.slug),
    );
    // A listing that missed some events covers no span: those it did list are still known present.
    if (read === 'whole') this.covered.push({ from: shiftDay(listed.from, MARGIN_DAYS), to: shiftDay(listed.to, -MARGIN_DAYS) });
  }

  /**
   * Every venue or organizer on the site by slug, listed once per run when `wanted` (items the
   * ledger does not know) makes it worth it; undefined when the listing was not worth it or failed.
   * When its pages left records out, what it holds is still true, but a miss proves nothing
   * (`linkedWhole`).
   */
  linked(kind: 'venues' | 'organizers', wanted: number): Promise<Map<string, LinkedEntry> | undefined> {
    const cached = this.linkedIndex[kind];
    if (cached) return cached;
    if (wanted < 2) return Promise.resolve(undefined);
    const res = linkedRoute(this.client, kind);
    const field = linkedNoun(kind);
    const query = { status: LISTED_STATUSES };
    const map = new Map<string, LinkedEntry>();
    const p = this.listAll(
      (page, signal) => res.list({ ...query, page, per_page: 50 }, { lang: this.opts.lang, signal }),
      (signal) => res.iterate({ ...query, page: 2, per_page: 50 }, { lang: this.opts.lang, signal, concurrency: this.opts.concurrency ?? 4 }),
      // A page replaces at most one lookup per entry the run needs: never more pages than those.
      Math.max(2, wanted),
      (r) => {
        const name = (r as unknown as Record<string, unknown>)[field];
        if (r.slug) map.set(r.slug, { id: r.id, slug: r.slug, name: typeof name === 'string' ? name : '', status: r.status });
      },
    ).then((read) => {
      if (!read) return undefined;
      if (read === 'partial') this.linkedPartial.add(kind);
      return (this.linkedDone[kind] = map);
    });
    this.linkedIndex[kind] = p;
    return p;
  }

  /** Whether the listing of `kind` held every record the site counted, so a name it lacks is absent. */
  linkedWhole(kind: 'venues' | 'organizers'): boolean {
    return !this.linkedPartial.has(kind);
  }

  /** Records a venue/organizer this run created, so a later item of the same name finds it. */
  noteLinked(kind: 'venues' | 'organizers', entry: LinkedEntry): void {
    this.linkedDone[kind]?.set(entry.slug, entry);
  }

  /**
   * The record a venue/organizer lookup by these slug candidates would find (else the oldest
   * listed record of the same name), or null when the site has none.
   */
  static findLinked(index: Map<string, LinkedEntry>, candidates: string[], name: string, explicitSlug?: string, same = sameName): LinkedEntry | null {
    for (const c of candidates) {
      const rec = index.get(c);
      if (rec && (c === explicitSlug || same(rec.name, name))) return rec;
    }
    // The site's slug of a name is not always ours (ß, scripts WordPress transliterates otherwise):
    // the listing has the names, so a record of the same name is found all the same.
    let found: LinkedEntry | null = null;
    for (const rec of index.values()) if (same(rec.name, name) && (!found || rec.id < found.id)) found = rec;
    return found;
  }

  /**
   * Page 1 alone (it tells the page count), then the rest when there are at most `maxPages`.
   * `whole` when every page was read and together they held the `total` the site announced;
   * undefined over budget, over time, or on any error; `partial` when every page was read but
   * pages repeated records and so left others out. That is how real sites list venues and
   * organizers created in the same second (their order is by post date alone, ties in no stable
   * order: test/contract/linked-paging.test.ts): a record such a listing lacks is not absent.
   */
  private async listAll<T extends { id: number; slug?: string }>(
    first: (page: number, signal: AbortSignal) => Promise<{ items: T[]; total: number; totalPages: number }>,
    rest: (signal: AbortSignal) => AsyncIterable<T>,
    maxPages: number,
    add: (item: T & { slug: string }) => void,
  ): Promise<'whole' | 'partial' | undefined> {
    const timeout = AbortSignal.timeout(this.opts.timeoutMs ?? 30_000);
    const signal = this.opts.signal ? AbortSignal.any([this.opts.signal, timeout]) : timeout;
    const seen = new Set<number>();
    const take = (item: T) => {
      seen.add(item.id);
      if (item.slug) add(item as T & { slug: string });
    };
    try {
      this.pages++;
      const p1 = await first(1, signal);
      p1.items.forEach(take);
      if (p1.totalPages <= 1) return 'whole';
      if (p1.totalPages > maxPages) return undefined;
      this.pages += p1.totalPages - 1;
      for await (const item of rest(signal)) take(item);
      return seen.size >= p1.total ? 'whole' : 'partial';
    } catch (err) {
      // A run that was cancelled stops; a listing that failed only costs the lookups it would have saved.
      if (this.opts.signal?.aborted) throw err;
      return undefined;
    }
  }
}

/** The resolver's own name comparison can be passed instead (site typography folded). */
const sameName = (a: string, b: string) => nameKey(a) === nameKey(b);
const maxDay = (a: string, b: string) => (a > b ? a : b);
const minDay = (a: string, b: string) => (a < b ? a : b);
