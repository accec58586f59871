import type { CalendarClient, EventAck, EventListQuery } from '../api/index.ts';
import { SlugMismatchError, eventVenue, goneAs, isGone, isNotFound } from '../api/index.ts';
import type { EventDraft, ItemFailure, Normalized, Origin, OrganizerDraft, TermDraft, VenueDraft } from '../model/draft.ts';
import { fingerprint } from '../model/fingerprint.ts';
import type { Language } from '../model/languages.ts';
import { recordTimes } from '../model/run-window.ts';
import { mapConcurrent, Slots } from '../util/pool.ts';
import { allInOrder } from '../util/settle.ts';
import { eventBody, eventFingerprint, linkKey, linkKeyOf, type EventBody, type EventLinkIds, type InlineEventBody } from './body.ts';
import { draftSlug, type DraftKey, type DraftKeys } from './draft-keys.ts';
import type { Ledger, LedgerEntry, Retirement } from './ledger.ts';
import { earlierWrite, markedWrite } from './job-mark.ts';
import type { LedgerListing } from './ledger-snapshot.ts';
import { LinkedResolver, type AdoptLinked } from './linked.ts';
import { originRef, type ItemKind, type ItemReport, type RunReport } from '../report/report.ts';
import { droppedTermsNote, keptTerms, TermResolver, type Taxonomy } from './terms.ts';
import { LISTED_STATUSES, shiftDay, SiteIndex, spanOf } from './site-index.ts';
import { retireVanished, type RetireOptions } from './retire.ts';
import { InlineClaim, type Link } from './inline.ts';
import { UNSETTLED } from './settled.ts';
import { confirmLinks } from './linked-trash.ts';

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
  /** Slugs and shapes of the drafts, worked out where they were parsed (an ICS import's parser thread). */
  keys?: DraftKeys;
  /** The job whose writes these are (RunContext.jobMark): its entries carry it (src/write/job-mark.ts). */
  mark?: string;
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
  /** The draft's eventShape (import, with DraftKeys), kept in the ledger beside its body's linkKey. */
  shape?: string;
  /**
   * Venues/organizers the site does not hold yet, to be created inside this event's write (or
   * awaited from the event that does): `body` and `fp` are final only once they are resolved
   * (SiteWriter.finish). In-process only: a plan that is stored (sync pages) never has it.
   */
  pending?: PendingLinks;
}

export interface PendingLinks {
  ids: ResolvedLinks['ids'];
  venue?: InlineClaim;
  /** In the draft's order: known ids and claims. */
  organizers: Array<number | InlineClaim>;
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

/** One link of an event, as a recorded group keeps it (src/runs/group-reuse.ts). */
export type GroupLinkKind = 'venues' | 'organizers' | Taxonomy;
export type GroupLinkDraft = VenueDraft | OrganizerDraft | TermDraft;

export interface ResolvedLinks {
  ids: EventLinkIds;
  notes: string[];
  /** With `inline`: the links still to be created inside an event write. */
  pending?: PendingLinks;
}

/** What a write did: the record, whether it was created, and the plan as finally written. */
interface Written {
  record: EventAck;
  created: boolean;
  p: PlannedWrite;
}

function failureKind(f: ItemFailure): ItemKind {
  return f.kind === 'event' ? 'events' : f.kind === 'venue' ? 'venues' : 'organizers';
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
  private readonly firstOrigin = new Map<string, Origin>();
  private termLimitWarnings = 0;
  private readonly primed = new Map<string, LedgerEntry | null>();
  /**
   * The ledger's event entries as prime() got them (before this run wrote any), and the entries this
   * run has stored since: together what the ledger holds, so retire() need not read it all again.
   * Only for a writer that is the one writer of its source meanwhile (an ICS import under its run lock).
   */
  private before?: LedgerListing;
  private readonly stored = new Map<string, LedgerEntry>();
  /** Event writes in flight, shared by overlapping batches (see Slots). */
  private readonly writeSlots: Slots;
  private readonly o: Required<Omit<SiteWriterOptions, 'lang' | 'signal' | 'termMemo' | 'adoptLinked' | 'keys' | 'mark'>> & Pick<SiteWriterOptions, 'lang' | 'signal' | 'termMemo' | 'adoptLinked' | 'mark'>;
  /** The options' keys, when they were worked out for this writer's source and status. */
  private readonly keys?: DraftKeys;

  constructor(opts: SiteWriterOptions) {
    this.o = { dryRun: false, onEdit: 'overwrite', status: 'publish', createTerms: true, concurrency: 8, updateTerms: false, ...opts };
    const keys = opts.keys;
    if (keys && keys.sourceKey === this.o.sourceKey && keys.status === this.o.status) this.keys = keys;
    this.terms = new TermResolver(opts.client, { lang: opts.lang, createTerms: this.o.createTerms, dryRun: this.o.dryRun, report: opts.report, updateTerms: this.o.updateTerms, memo: opts.termMemo, ...(opts.mark ? { job: { ledger: opts.ledger, mark: opts.mark } } : {}) });
    this.index = new SiteIndex(opts.client, { lang: opts.lang, signal: opts.signal, concurrency: Math.min(4, this.o.concurrency) });
    this.writeSlots = new Slots(this.o.concurrency);
    this.linked = new LinkedResolver(opts.client, opts.ledger, { lang: opts.lang, dryRun: this.o.dryRun, status: this.o.status, report: opts.report, adoptLinked: opts.adoptLinked, index: this.index, inline: !this.o.dryRun, mark: opts.mark });
  }

  /**
   * Lists the site's events over the dates of every item of the run the ledger does not know, in
   * one go: a run written in batches (ICS) then lists once instead of once per batch.
   * `snapshot`: every ledger entry of this source's events, read before this run wrote any.
   */
  async prime(items: Normalized<EventDraft>[], snapshot?: LedgerListing): Promise<void> {
    const drafts = items.flatMap((it) => (it.ok && !it.draft.cancelled ? [it.draft] : []));
    const slugs = drafts.map((d) => this.slugOf(d));
    // A snapshot of the whole ledger (ledgerSnapshot), read by the caller earlier, stands for the read.
    const known = snapshot ?? (await this.o.ledger.getMany('events', slugs));
    this.before = snapshot;
    // Kept for writePlanned: read once, not twice (only this run writes these slugs meanwhile).
    for (const slug of slugs) this.primed.set(slug, known.get(slug) ?? null);
    const unknown = drafts.filter((d) => !known.has(this.slugOf(d)));
    // The listings the first batch needs, read side by side instead of one after another (each is
    // a round trip to a site that may take a second per request): events by date, venues,
    // organizers, and the terms.
    await Promise.all([
      this.index.coverEvents(spanOf(unknown), unknown.length),
      this.linked.prime(drafts.flatMap((d) => (d.venue ? [d.venue] : [])), drafts.flatMap((d) => d.organizers)),
      this.terms.preload((['categories', 'tags'] as const).filter((tax) => drafts.some((d) => d[tax].length > 0))),
    ]);
  }

  /**
   * Before prime(), for drafts planned while the rest of their feed is still being read (an ICS
   * import, src/runs/import-ics-early.ts): their entries from the snapshot prime() is then given.
   */
  primeKnown(items: Normalized<EventDraft>[], snapshot: LedgerListing): void {
    this.before = snapshot;
    for (const it of items) {
      if (!it.ok || it.draft.cancelled) continue;
      const slug = this.slugOf(it.draft);
      this.primed.set(slug, snapshot.get(slug) ?? null);
    }
  }

  /** Whether prime() found this draft in the ledger (a re-import: most likely unchanged, no request). */
  knownAtPrime(it: Normalized<EventDraft>): boolean {
    return it.ok && !!this.primed.get(this.slugOf(it.draft));
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

  /** Drafts are asked for their slug several times a run (prime, plan, admit): hashed once each. */
  private readonly slugs = new WeakMap<EventDraft, string>();

  slugOf(d: EventDraft): string {
    const key = this.keys?.get(d);
    if (key) return key.slug;
    let slug = this.slugs.get(d);
    if (slug === undefined) this.slugs.set(d, (slug = draftSlug(this.o.sourceKey, d)));
    return slug;
  }

  /** Plans and writes in one go, so new venues/organizers can be created inside their first event's write. */
  async writeEvents(items: Normalized<EventDraft>[]): Promise<void> {
    const planned = await this.plan(items, undefined, { inline: true });
    try {
      await this.writePlanned(planned);
    } finally {
      // A claim whose events all failed before writing is still created, as it always was; not
      // in a cancelled run, which must stop writing (its rerun creates what its events need).
      if (!this.o.signal?.aborted) for (const p of planned) if ('pending' in p) for (const c of claimsOf(p.pending)) if (!c.taken) await this.linked.concrete(c);
    }
  }

  /**
   * Reports failed drafts, duplicates and cancelled occurrences, marks the rest as seen and
   * resolves their terms, venues and organizers (writing those as needed) into full event bodies.
   */
  async plan(items: Normalized<EventDraft>[], extra?: (d: EventDraft) => Pick<PlannedWrite, 'srcMod'>, opts: { inline?: boolean } = {}): Promise<PlannedEvent[]> {
    const { report } = this.o;
    const live: EventDraft[] = [];
    for (const it of items) {
      if (!it.ok) report.add({ kind: failureKind(it.failure), outcome: 'failed', reason: it.failure.reason, origin: it.failure.origin });
      else if (this.admit(this.slugOf(it.draft), it.draft.origin, it.draft.cancelled)) {
        live.push(it.draft);
        this.warnTermLimits(it.draft);
      }
    }
    await this.linked.prime(live.flatMap((d) => (d.venue ? [d.venue] : [])), live.flatMap((d) => d.organizers));
    const out = new Array<PlannedEvent>(live.length);
    const rest: number[] = [];
    // Links already resolved in this run (every event of a re-import after the first few) plan
    // without an await; the others resolve terms first (sequential per distinct term, cached),
    // then venues/organizers in parallel.
    live.forEach((d, i) => {
      const links = this.linksNow(d, opts.inline);
      if (links === UNSETTLED) rest.push(i);
      else out[i] = this.plannedEvent(d, links, extra);
    });
    // The batch's new terms all start at once (TermResolver.resolveEach); each event's links
    // resolve beside them, taking its terms from there.
    await Promise.all([
      this.terms.resolveEach(rest.flatMap((i) => termsOf(live[i]!)), this.o.concurrency),
      mapConcurrent(rest, this.o.concurrency, async (i) => {
        const links = await this.resolveLinks(live[i]!, opts.inline);
        out[i] = this.plannedEvent(live[i]!, links, extra);
      }),
    ]);
    return out;
  }

  /** An event seen unchanged by its key (an import with DraftKeys), else its body planned. */
  private plannedEvent(d: EventDraft, links: ResolvedLinks, extra?: (d: EventDraft) => Pick<PlannedWrite, 'srcMod'>): PlannedEvent {
    const key = this.keys?.get(d);
    return (key && !extra ? this.untouched(key, d, links) : undefined) ?? this.planned(d, links, extra, key);
  }

  private planned(d: EventDraft, { ids, notes, pending }: ResolvedLinks, extra?: (d: EventDraft) => Pick<PlannedWrite, 'srcMod'>, key?: DraftKey): PlannedWrite {
    const body = eventBody(d, ids, { status: this.o.status });
    const slug = key?.slug ?? this.slugOf(d);
    const kept = key ? { shape: key.shape } : {};
    if (pending) return { slug, origin: d.origin, body, fp: '', notes, pending, ...kept, ...extra?.(d) };
    // The links fingerprint serves only the sync's untouched check (with `extra`): not hashed for imports.
    return { slug, origin: d.origin, body, fp: eventFingerprint(body, slug), notes, ...kept, ...(extra ? { links: fingerprint(ids), ...extra(d) } : {}) };
  }

  /**
   * An event whose ledger entry (as primed) has its shape and the linkKey of these links: its body
   * would be the one written last (see eventShape), so it is unchanged without building or hashing it.
   */
  private untouched(key: DraftKey, d: EventDraft, { ids, pending }: ResolvedLinks): PlannedUntouched | undefined {
    if (pending) return undefined;
    const entry = this.primed.get(key.slug);
    if (!entry || entry.shape !== key.shape || entry.lids !== linkKeyOf(ids)) return undefined;
    // Written by an earlier delivery of this job: planned in full, and reported as that write (found()).
    if (earlierWrite(entry, this.o.mark)) return undefined;
    return { slug: key.slug, origin: d.origin, untouched: entry.id };
  }

  /**
   * A warning naming an event whose terms exceed the limits per event (src/write/terms.ts), for the
   * first few such events of the run; its report line says what was left out either way.
   */
  private warnTermLimits(d: EventDraft): void {
    const dropped = [droppedTermsNote('categories', d.categories), droppedTermsNote('tags', d.tags)].filter((n) => n !== undefined);
    if (dropped.length === 0 || ++this.termLimitWarnings > MAX_TERM_LIMIT_WARNINGS + 1) return;
    // Held with the event's report line: a feed refused after it was planned reports neither.
    this.o.report.warnWithItems(
      this.termLimitWarnings > MAX_TERM_LIMIT_WARNINGS
        ? `more events exceed the term limits per event; each one's report line (--json) says what was left out`
        : `${originRef(d.origin)}: ${dropped.join('; ')}`,
    );
  }

  /**
   * First sighting of a slug in this run: false (and reported) for a duplicate identity or a
   * cancelled occurrence, which retirement then handles.
   */
  admit(slug: string, origin: Origin, cancelled = false): boolean {
    const { report } = this.o;
    const first = this.firstOrigin.get(slug);
    if (first !== undefined) {
      const where = `${first.source}${first.line !== undefined ? `:${first.line}` : first.uid ? ` UID ${first.uid}` : ''}`;
      report.add({ kind: 'events', slug, outcome: 'skipped', reason: `duplicate of ${where} (same identity)`, origin });
      return false;
    }
    this.firstOrigin.set(slug, origin);
    if (cancelled) {
      this.cancelled.add(slug);
      report.add({ kind: 'events', slug, outcome: 'skipped', reason: 'cancelled in the source', origin });
      return false;
    }
    this.seen.add(slug);
    return true;
  }

  /**
   * Without writing anything: the ids these venues, organizers or terms (all of `kind`) resolve to
   * now, where resolving them needs no write; undefined for the others (src/runs/group-reuse.ts
   * checks a recorded group's links before its feed is accepted).
   */
  peekLinks(kind: GroupLinkKind, drafts: readonly GroupLinkDraft[]): Promise<Array<number | undefined>> {
    if (kind === 'venues' || kind === 'organizers') return this.linked.peekMany(kind, drafts as Array<VenueDraft | OrganizerDraft>);
    return Promise.all(drafts.map((d) => this.terms.peek(kind, d as TermDraft)));
  }

  /** Resolves them as an event's links are (once per run, reported as they are, read ahead together): a reused group's links. */
  async touchLinks(links: ReadonlyArray<readonly [GroupLinkKind, GroupLinkDraft]>): Promise<void> {
    const of = <K extends GroupLinkKind>(kind: K) => links.filter(([k]) => k === kind).map(([, d]) => d);
    await this.linked.prime(of('venues') as VenueDraft[], of('organizers') as OrganizerDraft[]);
    await mapConcurrent([...links], this.o.concurrency, async ([kind, d]) => {
      if (kind === 'venues') await this.linked.venueLink(d as VenueDraft);
      else if (kind === 'organizers') await this.linked.organizerLink(d as OrganizerDraft);
      else await this.terms.resolve(kind, d as TermDraft);
    });
  }

  /** Its site id as this run resolved it (a venue created inside an event included), once settled; else undefined. */
  linkIdNow(kind: GroupLinkKind, d: GroupLinkDraft): number | undefined {
    if (kind === 'categories' || kind === 'tags') {
      const ids = this.terms.resolvedNow(kind, [d as TermDraft]);
      return ids !== UNSETTLED && ids.length === 1 ? ids[0] : undefined;
    }
    const link = kind === 'venues' ? this.linked.venueLinkNow(d as VenueDraft) : this.linked.organizerLinkNow(d as OrganizerDraft);
    return link instanceof InlineClaim ? link.id : typeof link === 'number' ? link : undefined;
  }

  /**
   * Site ids of an event's terms, venue and organizers; a link that could not be written becomes a
   * note. With `inline`, new venues/organizers come back in `pending` instead of being created.
   */
  async resolveLinks(d: EventLinkDrafts, inline = false): Promise<ResolvedLinks> {
    // Side by side: terms, venue and organizers are separate records (a first sync's first page
    // waited for its category's lookup and create before its venue's). Settled in full, so that
    // the failure reported is the first in this order whichever answered first.
    const [categories, tags, venue, organizers] = await allInOrder([
      this.terms.resolveAll('categories', d.categories),
      this.terms.resolveAll('tags', d.tags),
      d.venue ? (inline ? this.linked.venueLink(d.venue) : this.linked.venue(d.venue)) : Promise.resolve(undefined),
      Promise.all(d.organizers.map((o) => (inline ? this.linked.organizerLink(o) : this.linked.organizer(o)))),
    ] as const);
    return this.assemble(d, categories, tags, venue, organizers);
  }

  /**
   * What resolveLinks would give, from links this run has already resolved, without awaiting;
   * UNSETTLED when any is not resolved yet (or, not `inline`, is a venue/organizer still to create).
   */
  linksNow(d: EventLinkDrafts, inline = false): ResolvedLinks | typeof UNSETTLED {
    const categories = this.terms.resolvedNow('categories', d.categories);
    const tags = categories === UNSETTLED ? UNSETTLED : this.terms.resolvedNow('tags', d.tags);
    if (categories === UNSETTLED || tags === UNSETTLED) return UNSETTLED;
    const usable = (link: Link | typeof UNSETTLED) => link !== UNSETTLED && (inline || !(link instanceof InlineClaim));
    const venue = d.venue ? this.linked.venueLinkNow(d.venue) : undefined;
    if (d.venue && !usable(venue!)) return UNSETTLED;
    const organizers: Link[] = [];
    for (const o of d.organizers) {
      const link = this.linked.organizerLinkNow(o);
      if (!usable(link)) return UNSETTLED;
      organizers.push(link as Link);
    }
    return this.assemble(d, categories, tags, venue as Link, organizers);
  }

  /** Resolved links as ids, notes for links that failed, and (inline) the claims still to be created. */
  private assemble(d: EventLinkDrafts, categories: number[], tags: number[], venueLink: Link, organizerLinks: Link[]): ResolvedLinks {
    const notes: string[] = [];
    for (const tax of ['categories', 'tags'] as const) {
      const dropped = droppedTermsNote(tax, d[tax]);
      if (dropped) notes.push(dropped);
    }
    let venue: number | undefined;
    let venueClaim: InlineClaim | undefined;
    if (d.venue) {
      if (venueLink instanceof InlineClaim) venueClaim = venueLink;
      else if (venueLink === undefined) notes.push(`written without its venue "${d.venue.venue}" (see the venue's failure)`);
      else venue = venueLink;
    }
    const organizers: number[] = [];
    const slots: Array<number | InlineClaim> = [];
    d.organizers.forEach((o, i) => {
      const link = organizerLinks[i];
      if (link === undefined) notes.push(`written without its organizer "${o.organizer}" (see the organizer's failure)`);
      else slots.push(link);
      if (typeof link === 'number') organizers.push(link);
    });
    const ids = { categories, tags, venue, organizers };
    const claimed = venueClaim !== undefined || slots.some((x) => x instanceof InlineClaim);
    return { ids, notes, ...(claimed ? { pending: { ids, venue: venueClaim, organizers: slots } } : {}) };
  }

  /** A plan's body, fingerprint and notes once its pending links have their ids. */
  private finish(p: PlannedWrite, ids: ReadonlyMap<InlineClaim, number | undefined>): PlannedWrite {
    const pending = p.pending!;
    const notes = [...p.notes];
    const body = { ...p.body };
    let venue = pending.ids.venue;
    if (pending.venue) {
      venue = ids.get(pending.venue);
      if (venue === undefined) notes.push(`written without its venue "${pending.venue.name}" (see the venue's failure)`);
      else body.venue = venue;
    }
    const organizers: number[] = [];
    for (const slot of pending.organizers) {
      const id = slot instanceof InlineClaim ? ids.get(slot) : slot;
      if (id !== undefined) organizers.push(id);
      else if (slot instanceof InlineClaim) notes.push(`written without its organizer "${slot.name}" (see the organizer's failure)`);
    }
    body.organizer = [...new Set(organizers)];
    // The links fingerprint serves only the sync's untouched check, beside the source's modified_utc
    // (src/runs/sync-site.ts): not hashed for an import's plan, which has neither (as in planned()).
    const sync = p.srcMod !== undefined ? { srcMod: p.srcMod, links: fingerprint({ ...pending.ids, venue, organizers }) } : {};
    return { slug: p.slug, origin: p.origin, body, fp: eventFingerprint(body, p.slug), notes, ...(p.shape !== undefined ? { shape: p.shape } : {}), ...sync };
  }

  /**
   * A plan with every pending link resolved the standalone way (created now, or awaited from the
   * event creating it), as it may be written: without the venue/organizers in the site's trash.
   */
  private async resolved(p: PlannedWrite): Promise<PlannedWrite> {
    if (!p.pending) return this.confirmed(p);
    const ids = new Map<InlineClaim, number | undefined>();
    for (const c of claimsOf(p.pending)) ids.set(c, await this.linked.concrete(c));
    return this.confirmed(this.finish(p, ids));
  }

  /** Writes planned events; the ledger decides which need a request. */
  async writePlanned(planned: PlannedEvent[]): Promise<void> {
    if (planned.length === 0) return;
    const known = await this.ledgerEntries(planned.map((p) => p.slug));
    const unknown = planned.filter((p): p is PlannedWrite => !('untouched' in p) && !known.has(p.slug));
    // Unchanged events (what a re-import mostly is) are reported here, without a task each.
    const rest: PlannedWrite[] = [];
    for (const p of planned) {
      const entry = 'untouched' in p ? undefined : known.get(p.slug);
      if ('untouched' in p) this.o.report.add({ kind: 'events', slug: p.slug, origin: p.origin, outcome: 'unchanged', siteId: p.untouched });
      // (An entry the plan has more to keep for goes through writeOne, which stores it.)
      else if (entry && entry.fp === p.fp && (this.o.dryRun || !refreshed(entry, p))) this.o.report.add(this.found({ kind: 'events', slug: p.slug, origin: p.origin }, entry));
      else rest.push(p);
    }
    // The venues and organizers these writes carry are looked at (not in the site's trash) while
    // the events' dates are listed, instead of after: a page of a queued sync waited for both in turn.
    this.checkLinks(rest);
    // Events calsync retired that are back in the source: restored under their site ids (restore()).
    const [, retired] = await Promise.all([
      this.index.coverEvents(spanOf(unknown.map((p) => p.body)), unknown.length),
      this.o.dryRun || unknown.length === 0 ? undefined : this.o.ledger.retirements('events', unknown.map((p) => p.slug)),
    ]);
    const recording: Promise<void>[] = [];
    // Every event of the batch queues for a request slot at once, in plan order: the slots are
    // first come first served, so this batch's writes all go before those of the batch planned
    // after it, which the run overlaps with this one (import-ics.ts). Fed a few at a time, two
    // batches took turns, ended together, and left the site idle while the next two were
    // planned. An event whose new venue/organizer another event is creating inline waits for it
    // before queueing (othersClaims); the claims an event carries itself are taken first, in
    // plan order, so it only ever waits for claims taken before its turn.
    await Promise.all(rest.map(async (p) => {
      const entry = known.get(p.slug);
      const back = retired?.get(p.slug);
      const mine = back ? undefined : this.takeInline(p, entry);
      const inline = mine && { mine, ids: await othersClaims(p, mine) };
      await this.writeSlots.run(() => {
        // A cancelled run (a worker's shutdown) stops at the next write, not at the end of a batch
        // that may hold the whole feed; what was written is in the ledger, a rerun does the rest.
        this.o.signal?.throwIfAborted();
        return this.writeOne(p, entry, recording, inline, back);
      });
    }));
    await Promise.all(recording);
  }

  /** Starts the trash checks of the linked ids `writes` carry (confirmed() awaits the same ones). */
  private checkLinks(writes: PlannedWrite[]): void {
    const venues = new Set<number>();
    const organizers = new Set<number>();
    for (const p of writes) {
      if (p.body.venue !== undefined) venues.add(p.body.venue);
      for (const id of p.body.organizer) organizers.add(id);
    }
    for (const id of venues) this.linked.usable('venues', id).catch(() => undefined);
    for (const id of organizers) this.linked.usable('organizers', id).catch(() => undefined);
  }

  /**
   * The events of a planned page whose job failed every attempt, reported as the target holds
   * them: an untouched event needed no write (unchanged); one whose ledger entry holds the planned
   * body was written, by an attempt of that job (marked `mark`: created or updated) or before
   * (unchanged); only the rest failed, with `reason`. Reporting the whole page as failed said
   * events the target holds as planned had failed (found stopping a real target mid-sync).
   */
  async reportUnwritten(planned: PlannedEvent[], reason: string, mark: string | undefined): Promise<void> {
    const known = await this.o.ledger.getMany('events', planned.map((p) => p.slug));
    for (const p of planned) {
      const base = { kind: 'events' as const, slug: p.slug, origin: p.origin };
      const entry = known.get(p.slug);
      if ('untouched' in p) this.o.report.add({ ...base, outcome: 'unchanged', siteId: p.untouched });
      else if (entry && entry.fp === p.fp) this.o.report.add(this.found(base, entry, mark));
      else this.o.report.add({ ...base, outcome: 'failed', reason });
    }
  }

  /**
   * For a plain create that carries new venues/organizers (createInline): the claims no other
   * event has taken, taken now (synchronously, so every event waits only for claims taken by
   * events dispatched before it). Undefined when the event is not written that way.
   */
  private takeInline(p: PlannedWrite, entry: LedgerEntry | undefined): InlineClaim[] | undefined {
    if (this.o.dryRun || entry || !p.pending || !this.createsNew(p)) return undefined;
    return claimsOf(p.pending).filter((c) => c.take());
  }

  /**
   * Writes one event; its ledger entry is stored (and the event reported) by a promise left in `recording`.
   * `inline`: the claims takeInline took for it (the event is then a plain create carrying them),
   * and the ids of the others, settled.
   */
  private async writeOne(planned: PlannedWrite, entry: LedgerEntry | undefined, recording: Promise<void>[], inline?: InlineWrite, retired?: Retirement): Promise<void> {
    const { report, client, lang } = this.o;
    let p = planned;
    const base = { kind: 'events' as const, slug: p.slug, origin: p.origin };
    if (entry && entry.fp === p.fp) {
      // Remember what lets the next run skip rendering this event (the source's newer modified_utc;
      // an entry written before shapes were kept), stored like a write's entry, without holding the request slot.
      const kept = this.o.dryRun ? undefined : refreshed(entry, p);
      if (kept) {
        recording.push(this.store(p.slug, kept).then(
          () => report.add(this.found(base, entry)),
          (err: Error) => report.add({ ...base, outcome: 'failed', reason: err.message }),
        ));
      } else report.add(this.found(base, entry));
      return;
    }
    try {
      if (this.o.dryRun) {
        const existing = await this.existsForDryRun(p);
        report.add({ ...base, outcome: existing ? 'updated' : 'created', reason: existing ? 'would be updated (dry run)' : 'would be created (dry run)' });
        return;
      }
      let record: EventAck;
      let created = false;
      if (entry) {
        p = await this.resolved(p);
        if (this.o.onEdit === 'preserve') {
          const current = await client.events.findBySlug(p.slug, { lang });
          if (current && entry.modified && current.modified_utc && current.modified_utc > entry.modified) {
            report.add({ ...base, outcome: 'skipped', siteId: current.id, reason: `edited on the site at ${current.modified_utc} UTC, after calsync last wrote it (--on-edit preserve)` });
            return;
          }
        }
        try {
          record = await client.eventWrites.updateBySlug(p.slug, p.body, { lang });
        } catch (err) {
          if (!isNotFound(err)) throw err;
          if (await this.isTrashed(entry.id)) {
            report.add({ ...base, outcome: 'skipped', siteId: entry.id, reason: 'deleted on the site (in trash); not re-created' });
            return;
          }
          // The site no longer has it at all (e.g. a site restored from backup): write it anew.
          ({ record, created } = await this.create(p));
        }
      } else if (inline) {
        ({ record, created, p } = await this.createInline(p, inline));
      } else {
        p = await this.resolved(p);
        ({ record, created, p } = retired ? await this.restore(p, retired) : { ...(await this.writeUnknown(p)), p });
      }
      const reason = p.notes.length ? p.notes.join('; ') : undefined;
      this.index.noteEvent(p.slug);
      const { outcome, earlier, stamp } = markedWrite(created ? 'created' : 'updated', entry, this.o.mark);
      const stored = { fp: p.fp, id: record.id, modified: record.modified_utc, ...recordTimes(record), src: p.origin.ref, srcMod: p.srcMod, links: p.links, ...shapeOf(p), ...stamp, at: new Date().toISOString() };
      // Stored (and reported) without holding this request slot: the ledger groups its writes
      // over a short window (RedisLedger.set), during which the slot can carry the next event to the site.
      recording.push(this.store(p.slug, stored).then(
        () => report.add({ ...base, outcome, siteId: record.id, reason, ...(earlier ? { earlier } : {}) }),
        (err: Error) => report.add({ ...base, outcome: 'failed', reason: err.message }),
      ));
    } catch (err) {
      report.add({ ...base, outcome: 'failed', reason: (err as Error).message });
    }
  }

  /**
   * An event found as last written (same fingerprint): unchanged, unless an earlier delivery of the
   * job marked `mark` (this run's, by default) wrote it (a worker killed under it, a failed attempt),
   * which then tells what it did.
   */
  private found(base: Pick<ItemReport, 'kind' | 'slug' | 'origin'>, entry: LedgerEntry, mark = this.o.mark): ItemReport {
    const earlier = earlierWrite(entry, mark);
    return earlier ? { ...base, outcome: earlier, siteId: entry.id, earlier: true } : { ...base, outcome: 'unchanged', siteId: entry.id };
  }

  /** The plan without the venue/organizers that are in the site's trash (src/write/linked-trash.ts). */
  private confirmed(p: PlannedWrite): Promise<PlannedWrite> {
    return confirmLinks(p, (kind, id) => this.linked.usable(kind, id));
  }

  /** Stores an event's ledger entry; once stored, it is also this run's view of the ledger (see `before`). */
  private async store(slug: string, entry: LedgerEntry): Promise<void> {
    await this.o.ledger.set('events', slug, entry);
    if (this.before) this.stored.set(slug, entry);
  }

  /** The ledger's event entries now, from prime()'s snapshot and this run's writes; undefined without a snapshot. */
  private ledgerNow(): LedgerListing | undefined {
    const { before, stored } = this;
    if (!before) return undefined;
    return {
      get: (slug) => stored.get(slug) ?? before.get(slug),
      has: (slug) => stored.has(slug) || before.has(slug),
      *slugs() {
        for (const slug of before.slugs()) if (!stored.has(slug)) yield slug;
        yield* stored.keys();
      },
    };
  }

  /**
   * Retires what this run's source no longer lists (and its cancelled occurrences), see retire.ts.
   * Primed with a snapshot, it reads the ledger's entries from there and this run's writes instead
   * of reading the whole ledger again.
   */
  retire(opts: Pick<RetireOptions, 'policy' | 'window' | 'maxShare' | 'force'>): Promise<void> {
    const o = this.o;
    return retireVanished({
      client: o.client, ledger: o.ledger, entries: this.ledgerNow(), report: o.report, lang: o.lang, seen: this.seen, cancelled: this.cancelled,
      dryRun: o.dryRun, concurrency: o.concurrency, preserveEdits: o.onEdit === 'preserve', mark: o.mark, ...opts,
    });
  }

  /**
   * An event the ledger does not know (first import, or Redis lost): the site index says whether
   * the slug is taken. Listed → update by slug; not listed although its dates were → create
   * straight away (a collision with an unlisted event is caught by create()); not covered → the
   * by-slug upsert. Events the lists cannot show (hidden from listings) and statuses whose slugs
   * the site does not make unique (drafts: a collision would go unnoticed) always take the upsert.
   */
  private async writeUnknown(p: PlannedWrite): Promise<{ record: EventAck; created: boolean }> {
    const { client, lang } = this.o;
    if (this.createsNew(p)) return this.createNew(p);
    const presence = this.index.eventPresence(p.slug, p.body.start_date, p.body.end_date);
    if (presence === 'present') {
      try {
        return { record: await client.eventWrites.updateBySlug(p.slug, p.body, { lang }), created: false };
      } catch (err) {
        // Trashed or deleted since it was listed.
        if (!isNotFound(err)) throw err;
      }
      return this.create(p);
    }
    return this.create(p);
  }

  /**
   * An event calsync retired that is back in its source: its record (in the site's trash, or a
   * draft) is written again by its site id with its slug, which publishes it under the same id and
   * slug (test/contract/events.test.ts), instead of a second record beside the trashed one. Gone
   * from the site, or its slug not shown free, it is written as any event the ledger does not know.
   */
  private async restore(p: PlannedWrite, retired: Retirement): Promise<Written> {
    const { client, lang } = this.o;
    let record: EventAck | undefined;
    // Only a slug the listings show free: the site would give a slug held meanwhile another one.
    if (this.index.eventPresence(p.slug, p.body.start_date, p.body.end_date) === 'absent') {
      try {
        record = await client.events.update(retired.id, { ...p.body, slug: p.slug }, { lang });
      } catch (err) {
        if (!isNotFound(err) && !isGone(err)) throw err;
      }
    }
    await this.o.ledger.forgetRetirements('events', [p.slug]);
    if (!record) return { ...(await this.writeUnknown(p)), p };
    if (record.slug !== p.slug) throw new SlugMismatchError('events', p.slug, record.slug ?? '', record);
    const note = `restored: retired on ${retired.at.slice(0, 10)} (${retired.reason}), back in the source, written again as site id ${retired.id}`;
    return { record, created: false, p: { ...p, notes: [...p.notes, note] } };
  }

  /** Whether a dry run's event is on the site: from the listings when they cover it, else a lookup. */
  private async existsForDryRun(p: PlannedWrite): Promise<boolean> {
    const presence = p.body.hide_from_listings ? 'unknown' : this.index.eventPresence(p.slug, p.body.start_date, p.body.end_date);
    if (presence !== 'unknown') return presence === 'present';
    return (await this.o.client.events.findBySlug(p.slug, { lang: this.o.lang })) !== null;
  }

  /** Whether the listings showed the slug free, for a status whose slugs the site makes unique, listed: then a plain create. */
  private createsNew(p: PlannedWrite): boolean {
    const presence = this.index.eventPresence(p.slug, p.body.start_date, p.body.end_date);
    return presence === 'absent' && UNIQUE_SLUG_STATUSES.has(p.body.status) && !p.body.hide_from_listings;
  }

  /**
   * A plain create that carries the new venues/organizers no other event has taken (one request
   * for all of them); those another event took are awaited first. Whatever the outcome, every
   * claim taken here is settled: from the answer (or the `<slug>-N` duplicate's), else created
   * on its own, so the events waiting for it go on.
   */
  private async createInline(planned: PlannedWrite, { mine, ids }: InlineWrite): Promise<Written> {
    const { client, lang } = this.o;
    // `mine` was taken in one synchronous pass (takeInline), and `ids` are the others' settled
    // (othersClaims): an event only ever waits for claims taken before its turn.
    const withIds = await this.confirmed(this.finish(planned, ids));
    if (mine.length === 0) return { ...(await this.createNew(withIds)), p: withIds };
    const linkable = (o: InlineEventBody['organizer'][number]) => typeof o !== 'number' || withIds.body.organizer.includes(o);
    const wire: InlineEventBody = { ...withIds.body, slug: planned.slug, organizer: this.inlineOrganizers(planned.pending!, ids).filter(linkable) };
    const venue = planned.pending!.venue && mine.includes(planned.pending!.venue) ? planned.pending!.venue.inlineBody() : undefined;
    if (venue && 'venue' in venue) wire.venue = venue;
    let record: EventAck;
    try {
      record = await client.eventWrites.create(wire, { lang });
    } catch (err) {
      if (slugTaken(err, planned.slug)) {
        const p = await this.settleClaims(planned, mine, ids, err.record as EventAck);
        return { ...(await this.takeSlug(p, err)), p };
      }
      await Promise.all(mine.map((c) => this.linked.standalone(c)));
      throw err;
    }
    const p = await this.settleClaims(planned, mine, ids, record);
    // A claim settled on another record (see LinkedResolver.completeInline): link that one.
    if (!sameLinks(record, p.body)) record = await client.eventWrites.updateBySlug(p.slug, p.body, { lang });
    return { record, created: true, p };
  }

  /** The organizer list of an inline create, in the draft's order: ids, and the fields of those this event creates. */
  private inlineOrganizers(pending: PendingLinks, ids: ReadonlyMap<InlineClaim, number | undefined>): InlineEventBody['organizer'] {
    const out: InlineEventBody['organizer'] = [];
    const sent = new Set<InlineClaim>();
    for (const slot of pending.organizers) {
      if (!(slot instanceof InlineClaim)) {
        out.push(slot);
        continue;
      }
      if (sent.has(slot)) continue;
      sent.add(slot);
      const id = ids.get(slot);
      const fields = ids.has(slot) ? undefined : slot.inlineBody();
      // An organizer claim always carries an organizer body; the check only narrows the type.
      if (fields && 'organizer' in fields) out.push(fields);
      else if (id !== undefined) out.push(id);
    }
    return out;
  }

  /** Settles the claims an inline create carried from the record it returned; the final plan, as it may be written (see resolved). */
  private async settleClaims(p: PlannedWrite, mine: InlineClaim[], ids: Map<InlineClaim, number | undefined>, record: EventAck): Promise<PlannedWrite> {
    const matched = new Set<number>(p.pending!.organizers.filter((x): x is number => typeof x === 'number'));
    for (const c of mine) {
      const rec = c.findIn(record, matched);
      const id = rec ? await this.linked.completeInline(c, rec).catch(() => rec.id) : await this.linked.standalone(c);
      if (id !== undefined && c.kind === 'organizers') matched.add(id);
      ids.set(c, id);
    }
    return this.confirmed(this.finish(p, ids));
  }

  /** A create of a slug the listings did not show; one the site already holds comes back as `<slug>-N`. */
  private async createNew(p: PlannedWrite): Promise<{ record: EventAck; created: boolean }> {
    const { client, lang } = this.o;
    try {
      return { record: await client.eventWrites.create({ ...p.body, slug: p.slug }, { lang }), created: true };
    } catch (err) {
      if (!slugTaken(err, p.slug)) throw err;
      return this.takeSlug(p, err);
    }
  }

  /**
   * The slug of a create the listings showed free was held by a record they did not show. On real
   * TEC 6.17.2 sites that can be a post left half written: an event create cut off when an earlier
   * run was stopped mid-write is published in WordPress without The Events Calendar's own rows, so
   * no listing, feed or calendar page shows it, yet it holds the slug
   * (test/regressions/crash-left-half-written-event.test.ts). Updating it kept that broken record,
   * and trashed the whole one just created. So a holder that is not hidden from listings and that
   * the listing of its own days still does not show goes to the trash, and the record just
   * created takes the slug. A hidden one, or one listed now (another writer's, created after our
   * listing), is updated as before (collided).
   */
  private async takeSlug(p: PlannedWrite, err: SlugMismatchError): Promise<{ record: EventAck; created: boolean }> {
    const { client, lang } = this.o;
    const created = (err.record as { id: number }).id;
    const held = await client.events.findBySlug(p.slug, { lang });
    if (!held || held.id === created || held.hide_from_listings || (await this.listedNow(held))) return this.collided(p, err);
    await client.events.delete(held.id, { lang });
    const record = await client.eventWrites.update(created, { ...p.body, slug: p.slug }, { lang });
    if (record.slug !== p.slug) throw err;
    this.o.report.warn(`event ${p.slug}: the site held its slug with a record no listing shows (id ${held.id}; a create cut off when an earlier run was stopped mid-write leaves one): moved to the site's trash, and this run's record (id ${record.id}) took the slug`);
    return { record, created: true };
  }

  /** Whether the site lists this event among those of its own days (a few pages at most: undecided counts as listed). */
  private async listedNow(rec: { id: number; start_date?: string }): Promise<boolean> {
    const day = rec.start_date?.slice(0, 10);
    if (!day || !/^\d{4}-\d{2}-\d{2}$/.test(day)) return false;
    const query = { start_date: shiftDay(day, -1), end_date: `${shiftDay(day, 1)} 23:59:59`, status: LISTED_STATUSES, per_page: 50 } as EventListQuery;
    let seen = 0;
    for await (const e of this.o.client.events.iterate(query, { lang: this.o.lang })) {
      if (e.id === rec.id || ++seen >= LISTED_NOW_MAX) return true;
    }
    return false;
  }

  private async create(p: PlannedWrite): Promise<{ record: EventAck; created: boolean }> {
    const { client, lang } = this.o;
    try {
      return await client.eventWrites.upsertBySlug(p.slug, p.body, { lang });
    } catch (err) {
      return this.collided(p, err);
    }
  }

  /**
   * A create that came back as `<slug>-N` where the listings had not shown the slug free (an
   * event hidden from listings, dates the listing did not cover): trash our duplicate and update
   * the original.
   */
  private async collided(p: PlannedWrite, err: unknown): Promise<{ record: EventAck; created: boolean }> {
    const { client, lang } = this.o;
    if (!slugTaken(err, p.slug)) throw err;
    const dup = err.record as { id: number };
    await client.events.delete(dup.id, { lang }).catch(() => undefined);
    return { record: await client.eventWrites.updateBySlug(p.slug, p.body, { lang }), created: false };
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

/** A create the site answered under `<slug>-N`: another record held the slug. */
function slugTaken(err: unknown, slug: string): err is SlugMismatchError {
  return err instanceof SlugMismatchError && err.actual.startsWith(`${slug}-`);
}

/** Events read to find whether one event is listed (SiteWriter.listedNow): four pages. */
const LISTED_NOW_MAX = 200;

/** Events named in a warning for exceeding the terms limits, before one line stands for the rest. */
const MAX_TERM_LIMIT_WARNINGS = 10;

/** An event's categories and tags, as TermResolver.resolveEach takes them. */
function termsOf(d: EventLinkDrafts): Array<readonly [Taxonomy, TermDraft]> {
  return [...keptTerms(d.categories).map((t) => ['categories', t] as const), ...keptTerms(d.tags).map((t) => ['tags', t] as const)];
}

/** An inline create's claims: those it carries itself, and the ids of those other events created. */
interface InlineWrite {
  mine: InlineClaim[];
  ids: Map<InlineClaim, number | undefined>;
}

/**
 * Waits, without a request slot, for the venues/organizers of this plan that events dispatched
 * before it are creating (each claim settles whatever happens, see InlineClaim), and gives their
 * ids. Those events wait only for earlier ones in turn, so the waits form no cycle.
 */
async function othersClaims(p: PlannedWrite, mine: readonly InlineClaim[]): Promise<Map<InlineClaim, number | undefined>> {
  const ids = new Map<InlineClaim, number | undefined>();
  for (const c of claimsOf(p.pending)) if (!mine.includes(c)) ids.set(c, await c.result);
  return ids;
}

/** The shape and linkKey a plan lets the ledger keep (import plans with DraftKeys). */
function shapeOf(p: PlannedWrite): Pick<LedgerEntry, 'shape' | 'lids'> {
  return p.shape === undefined ? {} : { shape: p.shape, lids: linkKey(p.body) };
}

/**
 * An unchanged event's entry with what the plan knows and the entry lacks (a sync's newer source
 * modified_utc and links; an import's shape), or undefined when there is nothing to add.
 */
function refreshed(entry: LedgerEntry, p: PlannedWrite): LedgerEntry | undefined {
  const sync = p.srcMod !== undefined && (entry.srcMod !== p.srcMod || entry.links !== p.links);
  const shape = shapeOf(p);
  const shaped = shape.shape !== undefined && (entry.shape !== shape.shape || entry.lids !== shape.lids);
  if (!sync && !shaped) return undefined;
  return { ...entry, ...(sync ? { srcMod: p.srcMod, links: p.links } : {}), ...shape };
}

function claimsOf(pending: PendingLinks | undefined): InlineClaim[] {
  if (!pending) return [];
  // Once each: an organizer named twice is one claim.
  return [...new Set([pending.venue, ...pending.organizers].filter((x): x is InlineClaim => x instanceof InlineClaim))];
}

/** Whether the event as written links the venue and organizers of `body`. */
function sameLinks(record: EventAck, body: EventBody): boolean {
  const orgs = new Set(record.organizer.map((o) => o.id));
  return (eventVenue(record)?.id ?? undefined) === body.venue && orgs.size === body.organizer.length && body.organizer.every((id) => orgs.has(id));
}
