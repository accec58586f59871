import type { CalendarClient, EventRecord } from '../api/index.ts';
import { SlugMismatchError, goneAs, isNotFound } from '../api/index.ts';
import type { EventDraft, ItemFailure, Normalized, Origin } from '../model/draft.ts';
import { fingerprint } from '../model/fingerprint.ts';
import { slugFor } from '../model/identity.ts';
import type { Language } from '../model/languages.ts';
import { mapConcurrent } from '../util/pool.ts';
import { eventBody, type EventBody, type EventLinkIds } from './body.ts';
import type { Ledger, LedgerEntry } from './ledger.ts';
import { LinkedResolver, type AdoptLinked } from './linked.ts';
import type { ItemKind, RunReport } from '../report/report.ts';
import { TermResolver } from './terms.ts';
import { SiteIndex, spanOf } from './site-index.ts';
import { retireVanished, type RetireOptions } from './retire.ts';

export type OnEdit = 'overwrite' | 'preserve';

/** Statuses WordPress makes slugs unique for on create (drafts and pending may share a slug). */
const UNIQUE_SLUG_STATUSES = new Set(['publish', 'future', 'private']);

export interface SiteWriterOptions {
  client: CalendarClient;
  ledger: Ledger;
  report: RunReport;
  sourceKey: string;
  lang?: Language;
  dryRun?: boolean;
  onEdit?: OnEdit;
  /** Existing venues/organizers calsync did not create: link only (default) or overwrite their fields. */
  adoptLinked?: AdoptLinked;
  /** Post status for new records unless the draft says otherwise. @defaultValue 'publish' */
  status?: string;
  createTerms?: boolean;
  /** Requests in flight against the site. @defaultValue 8 */
  concurrency?: number;
  signal?: AbortSignal;
  /** Update terms matched by slug when their name/description/parent changed (sync). */
  updateTerms?: boolean;
  /** Sync's source→target term map (see TermResolver `memo`). */
  termMemo?: Ledger;
}

/**
 * An event ready to be written: its body resolved to site ids. Plain JSON, so a plan made by one
 * worker can be stored in Redis and written by another (sync pages).
 */
export interface PlannedWrite {
  slug: string;
  origin: Origin;
  body: EventBody;
  fp: string;
  notes: string[];
  /** Source `modified_utc` and resolved-links fingerprint, kept in the ledger (sync, see `untouched`). */
  srcMod?: string;
  links?: string;
}

/** A source event untouched since calsync last wrote it, with the same linked ids: no body was rendered. */
export interface PlannedUntouched {
  slug: string;
  origin: Origin;
  untouched: number;
}

export type PlannedEvent = PlannedWrite | PlannedUntouched;

/** What an event links to, as drafts, before resolution to site ids (EventLinkIds). */
export type EventLinkDrafts = Pick<EventDraft, 'categories' | 'tags' | 'venue' | 'organizers'>;

export interface ResolvedLinks {
  ids: EventLinkIds;
  notes: string[];
}

function failureKind(f: ItemFailure): ItemKind {
  return f.kind === 'event' ? 'events' : f.kind === 'venue' ? 'venues' : 'organizers';
}

/** `YYYY-MM-DD HH:MM:SS` (UTC, as the site returns it) → ISO instant. */
function utcIso(siteUtc: string | undefined): string | undefined {
  return siteUtc ? `${siteUtc.replace(' ', 'T')}Z` : undefined;
}

/**
 * The write half of every import and sync: terms → venues/organizers → events, by slug, with
 * the ledger deciding what needs a request. Batches can be fed one after another (CSV chunks,
 * sync pages); `seen` and `cancelled` collect the slugs retirement needs at the end.
 */
export class SiteWriter {
  readonly terms: TermResolver;
  readonly linked: LinkedResolver;
  /** What the site already holds, from list pages: new items then cost one create each. */
  readonly index: SiteIndex;
  readonly seen = new Set<string>();
  readonly cancelled = new Set<string>();
  private readonly firstOrigin = new Map<string, string>();
  private readonly primed = new Map<string, LedgerEntry | null>();
  private readonly o: Required<Omit<SiteWriterOptions, 'lang' | 'signal' | 'termMemo' | 'adoptLinked'>> & Pick<SiteWriterOptions, 'lang' | 'signal' | 'termMemo' | 'adoptLinked'>;

  constructor(opts: SiteWriterOptions) {
    this.o = { dryRun: false, onEdit: 'overwrite', status: 'publish', createTerms: true, concurrency: 8, updateTerms: false, ...opts };
    this.terms = new TermResolver(opts.client, { lang: opts.lang, createTerms: this.o.createTerms, dryRun: this.o.dryRun, report: opts.report, updateTerms: this.o.updateTerms, memo: opts.termMemo });
    this.index = new SiteIndex(opts.client, { lang: opts.lang, signal: opts.signal, concurrency: Math.min(4, this.o.concurrency) });
    this.linked = new LinkedResolver(opts.client, opts.ledger, { lang: opts.lang, dryRun: this.o.dryRun, status: this.o.status, report: opts.report, adoptLinked: opts.adoptLinked, index: this.index });
  }

  /**
   * Lists the site's events over the dates of every item of the run the ledger does not know, in
   * one go: a run written in batches (ICS) then lists once instead of once per batch.
   */
  async prime(items: Normalized<EventDraft>[]): Promise<void> {
    if (this.o.dryRun) return;
    const drafts = items.flatMap((it) => (it.ok && !it.draft.cancelled ? [it.draft] : []));
    const slugs = drafts.map((d) => this.slugOf(d));
    const known = await this.o.ledger.getMany('events', slugs);
    // Kept for writePlanned: read once, not twice (only this run writes these slugs meanwhile).
    for (const slug of slugs) this.primed.set(slug, known.get(slug) ?? null);
    const unknown = drafts.filter((d) => !known.has(this.slugOf(d)));
    await this.index.coverEvents(spanOf(unknown), unknown.length);
  }

  /** Ledger entries of planned slugs: those read by prime() once, the rest from the ledger. */
  private async ledgerEntries(slugs: string[]): Promise<Map<string, LedgerEntry>> {
    const out = new Map<string, LedgerEntry>();
    const rest: string[] = [];
    for (const slug of slugs) {
      const e = this.primed.get(slug);
      if (e === undefined) rest.push(slug);
      else {
        this.primed.delete(slug);
        if (e) out.set(slug, e);
      }
    }
    if (rest.length) for (const [k, v] of await this.o.ledger.getMany('events', rest)) out.set(k, v);
    return out;
  }

  slugOf(d: EventDraft): string {
    return d.slug ?? slugFor(this.o.sourceKey, d.identity);
  }

  async writeEvents(items: Normalized<EventDraft>[]): Promise<void> {
    await this.writePlanned(await this.plan(items));
  }

  /**
   * Reports failed drafts, duplicates and cancelled occurrences, marks the rest as seen and
   * resolves their terms, venues and organizers (writing those as needed) into full event bodies.
   */
  async plan(items: Normalized<EventDraft>[], extra?: (d: EventDraft) => Pick<PlannedWrite, 'srcMod'>): Promise<PlannedWrite[]> {
    const { report } = this.o;
    const live: EventDraft[] = [];
    for (const it of items) {
      if (!it.ok) report.add({ kind: failureKind(it.failure), outcome: 'failed', reason: it.failure.reason, origin: it.failure.origin });
      else if (this.admit(this.slugOf(it.draft), it.draft.origin, it.draft.cancelled)) live.push(it.draft);
    }
    await this.linked.prime(live.flatMap((d) => (d.venue ? [d.venue] : [])), live.flatMap((d) => d.organizers));
    // Terms first (sequential per distinct term, cached), then venues/organizers in parallel.
    return mapConcurrent(live, this.o.concurrency, async (d): Promise<PlannedWrite> => {
      const { ids, notes } = await this.resolveLinks(d);
      const body = eventBody(d, ids, { status: this.o.status });
      const slug = this.slugOf(d);
      return { slug, origin: d.origin, body, fp: fingerprint({ ...body, slug }), notes, links: fingerprint(ids), ...extra?.(d) };
    });
  }

  /**
   * First sighting of a slug in this run: false (and reported) for a duplicate identity or a
   * cancelled occurrence, which retirement then handles.
   */
  admit(slug: string, origin: Origin, cancelled = false): boolean {
    const { report } = this.o;
    const where = `${origin.source}${origin.line !== undefined ? `:${origin.line}` : origin.uid ? ` UID ${origin.uid}` : ''}`;
    const first = this.firstOrigin.get(slug);
    if (first !== undefined) {
      report.add({ kind: 'events', slug, outcome: 'skipped', reason: `duplicate of ${first} (same identity)`, origin });
      return false;
    }
    this.firstOrigin.set(slug, where);
    if (cancelled) {
      this.cancelled.add(slug);
      report.add({ kind: 'events', slug, outcome: 'skipped', reason: 'cancelled in the source', origin });
      return false;
    }
    this.seen.add(slug);
    return true;
  }

  /** Site ids of an event's terms, venue and organizers; a link that could not be written becomes a note. */
  async resolveLinks(d: EventLinkDrafts): Promise<ResolvedLinks> {
    const notes: string[] = [];
    const categories = await this.terms.resolveAll('categories', d.categories);
    const tags = await this.terms.resolveAll('tags', d.tags);
    let venue: number | undefined;
    if (d.venue) {
      venue = await this.linked.venue(d.venue);
      if (venue === undefined) notes.push(`written without its venue "${d.venue.venue}" (see the venue's failure)`);
    }
    const organizers: number[] = [];
    for (const o of d.organizers) {
      const id = await this.linked.organizer(o);
      if (id === undefined) notes.push(`written without its organizer "${o.organizer}" (see the organizer's failure)`);
      else organizers.push(id);
    }
    return { ids: { categories, tags, venue, organizers }, notes };
  }

  /** Writes planned events; the ledger decides which need a request. */
  async writePlanned(planned: PlannedEvent[]): Promise<void> {
    if (planned.length === 0) return;
    const known = await this.ledgerEntries(planned.map((p) => p.slug));
    if (!this.o.dryRun) {
      const unknown = planned.filter((p): p is PlannedWrite => !('untouched' in p) && !known.has(p.slug));
      await this.index.coverEvents(spanOf(unknown.map((p) => p.body)), unknown.length);
    }
    await mapConcurrent(planned, this.o.concurrency, async (p) => {
      if ('untouched' in p) this.o.report.add({ kind: 'events', slug: p.slug, origin: p.origin, outcome: 'unchanged', siteId: p.untouched });
      else await this.writeOne(p, known.get(p.slug));
    });
  }

  private async writeOne(p: PlannedWrite, entry: LedgerEntry | undefined): Promise<void> {
    const { report, client, lang, ledger } = this.o;
    const base = { kind: 'events' as const, slug: p.slug, origin: p.origin };
    const reason = p.notes.length ? p.notes.join('; ') : undefined;
    if (entry && entry.fp === p.fp) {
      // Remember the source's newer modified_utc, so the next sync need not render this event again.
      if (!this.o.dryRun && p.srcMod !== undefined && (entry.srcMod !== p.srcMod || entry.links !== p.links)) await ledger.set('events', p.slug, { ...entry, srcMod: p.srcMod, links: p.links });
      report.add({ ...base, outcome: 'unchanged', siteId: entry.id });
      return;
    }
    try {
      if (this.o.dryRun) {
        const existing = await client.events.findBySlug(p.slug, { lang });
        report.add({ ...base, outcome: existing ? 'updated' : 'created', reason: existing ? 'would be updated (dry run)' : 'would be created (dry run)' });
        return;
      }
      let record: EventRecord;
      let created = false;
      if (entry) {
        if (this.o.onEdit === 'preserve') {
          const current = await client.events.findBySlug(p.slug, { lang });
          if (current && entry.modified && current.modified_utc && current.modified_utc > entry.modified) {
            report.add({ ...base, outcome: 'skipped', siteId: current.id, reason: `edited on the site at ${current.modified_utc} UTC, after calsync last wrote it (--on-edit preserve)` });
            return;
          }
        }
        try {
          record = await client.events.updateBySlug(p.slug, p.body, { lang });
        } catch (err) {
          if (!isNotFound(err)) throw err;
          if (await this.isTrashed(entry.id)) {
            report.add({ ...base, outcome: 'skipped', siteId: entry.id, reason: 'deleted on the site (in trash); not re-created' });
            return;
          }
          // The site no longer has it at all (e.g. a site restored from backup): write it anew.
          ({ record, created } = await this.create(p));
        }
      } else {
        ({ record, created } = await this.writeUnknown(p));
      }
      this.index.noteEvent(p.slug);
      await ledger.set('events', p.slug, { fp: p.fp, id: record.id, modified: record.modified_utc, start: utcIso(record.utc_start_date), src: p.origin.ref, srcMod: p.srcMod, links: p.links, at: new Date().toISOString() });
      report.add({ ...base, outcome: created ? 'created' : 'updated', siteId: record.id, reason });
    } catch (err) {
      report.add({ ...base, outcome: 'failed', reason: (err as Error).message });
    }
  }

  /** Retires what this run's source no longer lists (and its cancelled occurrences), see retire.ts. */
  retire(opts: Pick<RetireOptions, 'policy' | 'window' | 'maxShare' | 'force'>): Promise<void> {
    const o = this.o;
    return retireVanished({ client: o.client, ledger: o.ledger, report: o.report, lang: o.lang, seen: this.seen, cancelled: this.cancelled, dryRun: o.dryRun, concurrency: o.concurrency, ...opts });
  }

  /**
   * An event the ledger does not know (first import, or Redis lost): the site index says whether
   * the slug is taken. Listed → update by slug; not listed although its dates were → create
   * straight away (a collision with an unlisted event is caught by create()); not covered → the
   * by-slug upsert. Events the lists cannot show (hidden from listings) and statuses whose slugs
   * the site does not make unique (drafts: a collision would go unnoticed) always take the upsert.
   */
  private async writeUnknown(p: PlannedWrite): Promise<{ record: EventRecord; created: boolean }> {
    const { client, lang } = this.o;
    const presence = this.index.eventPresence(p.slug, p.body.start_date, p.body.end_date);
    if (presence === 'present') {
      try {
        return { record: await client.events.updateBySlug(p.slug, p.body, { lang }), created: false };
      } catch (err) {
        // Trashed or deleted since it was listed.
        if (!isNotFound(err)) throw err;
      }
      return this.create(p);
    }
    if (presence === 'absent' && UNIQUE_SLUG_STATUSES.has(p.body.status) && !p.body.hide_from_listings) return this.createNew(p);
    return this.create(p);
  }

  /** A create of a slug the listings did not show; one the site already holds comes back as `<slug>-N`. */
  private async createNew(p: PlannedWrite): Promise<{ record: EventRecord; created: boolean }> {
    const { client, lang } = this.o;
    try {
      return { record: await client.events.create({ ...p.body, slug: p.slug }, { lang }), created: true };
    } catch (err) {
      return this.collided(p, err);
    }
  }

  private async create(p: PlannedWrite): Promise<{ record: EventRecord; created: boolean }> {
    const { client, lang } = this.o;
    try {
      return await client.events.upsertBySlug(p.slug, p.body, { lang });
    } catch (err) {
      return this.collided(p, err);
    }
  }

  /**
   * A create that came back as `<slug>-N`: the slug was taken (another worker a moment before
   * us, or an event the listings did not show). Trash our duplicate and update the original.
   */
  private async collided(p: PlannedWrite, err: unknown): Promise<{ record: EventRecord; created: boolean }> {
    const { client, lang } = this.o;
    if (!(err instanceof SlugMismatchError) || !err.actual.startsWith(`${p.slug}-`)) throw err;
    const dup = err.record as { id: number };
    await client.events.delete(dup.id, { lang }).catch(() => undefined);
    return { record: await client.events.updateBySlug(p.slug, p.body, { lang }), created: false };
  }

  private async isTrashed(id: number): Promise<boolean> {
    try {
      const rec = await this.o.client.events.get(id, { lang: this.o.lang });
      return rec.status === 'trash';
    } catch (err) {
      // Trashed events answer 403 event-no-longer-available (6.17.2) or event-not-accessible (6.17.1).
      return goneAs(err) === 'trashed';
    }
  }
}
