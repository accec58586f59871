import type { CalendarClient } from '../api/index.ts';
import { goneAs, isGone } from '../api/index.ts';
import type { Origin, OrganizerDraft, VenueDraft } from '../model/draft.ts';
import { fingerprint } from '../model/fingerprint.ts';
import { shortHash, slugify } from '../model/identity.ts';
import { sameSiteName, termKey } from './terms.ts';
import type { Language } from '../model/languages.ts';
import { organizerBody, venueBody } from './body.ts';
import { createLinked, linkedNoun, linkedRoute, updateLinked, type LinkedBody } from './linked-writes.ts';
import type { Ledger, LedgerEntry } from './ledger.ts';
import { earlierWrite, markedWrite, type WriteOutcome } from './job-mark.ts';
import type { RunReport } from '../report/report.ts';
import { SiteIndex } from './site-index.ts';
import { InlineClaim, type Link, type LinkedKind, type LinkedRecord } from './inline.ts';
import { Settled, UNSETTLED } from './settled.ts';
import type { LinkUse } from './linked-trash.ts';

export interface LinkedResolverOptions {
  lang?: Language;
  dryRun: boolean;
  status?: string;
  report: RunReport;
  /**
   * A venue/organizer already on the site that calsync did not create (not in its ledger) is
   * linked by the events that need it; `link` (default) leaves its fields as the site's owner
   * made them, `overwrite` writes the source's fields over them.
   */
  adoptLinked?: AdoptLinked;
  /** Venues/organizers listed once per run, instead of a lookup per item the ledger does not know. */
  index?: SiteIndex;
  /**
   * New venues/organizers become InlineClaims (created inside the first event that links them)
   * instead of being created at once; see venueLink/organizerLink.
   */
  inline?: boolean;
  /** The job whose writes these are: its entries carry it (src/write/job-mark.ts). */
  mark?: string;
}

export type AdoptLinked = 'link' | 'overwrite';

/**
 * A venue/organizer of the ledger linked without a request (see `unchecked`), with what creates it
 * again if the site no longer has it (goneForGood): none for one the ledger has in the site's trash.
 */
interface Unchecked {
  kind: LinkedKind;
  key: string;
  name: string;
  entry: LedgerEntry;
  body?: LinkedBody;
  origin?: Origin;
  explicitSlug?: string;
}


/** The slugs a venue/organizer of this name can have on the site: the source's, then the one WordPress derives from the name. */
function slugCandidates(name: string, explicitSlug?: string): string[] {
  return [...new Set([explicitSlug, slugify(name, 200)].filter((x): x is string => !!x))];
}

/**
 * The ledger key of a venue/organizer: readable and derived from its identity (normalized
 * location text, e-mail, CSV key) rather than the source, so several feeds naming the same place
 * share one venue. It is NOT the site slug: the v1 API takes no slug when a venue or organizer is
 * created (SPEC §2.2/§2.3), so the site names it from its title and the ledger keeps that slug.
 */
export function linkedSlug(kind: LinkedKind, name: string, identity: string): string {
  const readable = slugify(name, 60) || linkedNoun(kind);
  return `${readable}-${shortHash(`${kind}\u0000${identity}`, 8)}`;
}

/** The recorded spelling of a name when it is the same name (termKey), else the name as typed. */
function spelledAs(recorded: string, typed: string): string {
  return termKey(recorded) === termKey(typed) ? recorded : typed;
}

/** A venue's or organizer's key in this run's maps (pending links, primed ledger entries). */
function runKey(kind: LinkedKind, key: string): string {
  return `${kind}\u0000${key}`;
}

/**
 * Resolves each distinct venue and organizer once per run to its site id for linking: unchanged
 * ones (same fingerprint in the ledger) cost no request, known ones are updated by id, new ones
 * are created, on their own or (with `inline`) inside the first event write that links them.
 */
export class LinkedResolver {
  private readonly client: CalendarClient;
  private readonly ledger: Ledger;
  private readonly opts: LinkedResolverOptions;
  private readonly pending = new Settled<Link>();
  private readonly sameName = new Map<string, Promise<Link>>();
  /**
   * Ledger entries prime() read (null: none), used once by upsert instead of a read per venue or
   * organizer (only this run writes these keys meanwhile, as for SiteWriter's primed events).
   */
  private readonly primed = new Map<string, LedgerEntry | null>();
  /**
   * Spellings recorded before this run's own claims (runKey): those prime() read, and those a claim
   * found there already. Final, so no claim is needed for them; upsert tells calsync's records by them.
   */
  private readonly recorded = new Map<string, string>();
  private dryRunIds = -1;
  /**
   * Venues/organizers of the ledger this run links without a request (unchanged, or adopted), and
   * those the ledger has as in the site's trash, by `kind:id`: checked on the site once per run
   * when an event write is about to link them (usable).
   */
  private readonly unchecked = new Map<string, Unchecked>();
  private readonly checks = new Map<string, Promise<LinkUse>>();
  /** Venues/organizers (`kind:id`) this run wrote or read on the site: no event write needs to look at them again. */
  private readonly seenOnSite = new Set<string>();
  private readonly warned = new Set<string>();
  /**
   * Venues/organizers this run created again because the site no longer had them (goneForGood):
   * the events this run did not write still name the old id, so the run is not done with the feed
   * (an ICS import then does not count as clean: the next run writes those events, linked again).
   */
  recreated = 0;

  constructor(client: CalendarClient, ledger: Ledger, opts: LinkedResolverOptions) {
    this.client = client;
    this.ledger = ledger;
    this.opts = opts;
  }

  /** Every event names its venue and organizers again: their keys are hashed once per run. */
  private readonly keys = new Map<string, string>();
  private keyOf(kind: LinkedKind, name: string, identity: string): string {
    const k = `${kind}\u0000${name}\u0000${identity}`;
    let key = this.keys.get(k);
    if (key === undefined) this.keys.set(k, (key = linkedSlug(kind, name, identity)));
    return key;
  }

  /**
   * Drafts of one source share their venue and organizer objects (the ICS normalizer makes one per
   * distinct value): the slug is kept per object too, so most events skip building the key string.
   * A draft's fields are not changed once it is planned, so the object stands for its fields.
   */
  private readonly slugOfDraft = new WeakMap<VenueDraft | OrganizerDraft, string>();

  venueSlug(d: VenueDraft): string {
    return this.slugOf(d, () => d.slug ?? this.keyOf('venues', d.venue, d.identity));
  }

  organizerSlug(d: OrganizerDraft): string {
    return this.slugOf(d, () => d.slug ?? this.keyOf('organizers', d.organizer, d.identity));
  }

  private slugOf(d: VenueDraft | OrganizerDraft, make: () => string): string {
    let slug = this.slugOfDraft.get(d);
    if (slug === undefined) this.slugOfDraft.set(d, (slug = make()));
    return slug;
  }

  /** The venue's site id (written now if needed). `origin` is given when the venue is an item of its own (a row of a venues CSV). */
  async venue(d: VenueDraft, origin?: Origin): Promise<number | undefined> {
    return this.concrete(await this.venueLink(d, origin));
  }

  async organizer(d: OrganizerDraft, origin?: Origin): Promise<number | undefined> {
    return this.concrete(await this.organizerLink(d, origin));
  }

  /** The venue's site id, or (with `inline`) an InlineClaim when the site does not hold it yet. */
  venueLink(d: VenueDraft, origin?: Origin): Promise<Link> {
    const key = this.venueSlug(d);
    return this.once('venues', key, () => this.byName('venues', d.venue, async () => {
      const venue = await this.spelling('venues', key, d.venue);
      return this.upsert('venues', key, venue, this.bodyOf('venues', d, venue), origin, d.slug);
    }));
  }

  organizerLink(d: OrganizerDraft, origin?: Origin): Promise<Link> {
    const key = this.organizerSlug(d);
    return this.once('organizers', key, () => this.byName('organizers', d.organizer, async () => {
      const organizer = await this.spelling('organizers', key, d.organizer);
      return this.upsert('organizers', key, organizer, this.bodyOf('organizers', d, organizer), origin, d.slug);
    }));
  }

  /**
   * The ids venueLink/organizerLink would give without writing anything, for those the ledger holds
   * with the fields they have now (or as linked, not created); undefined for the others. Reads
   * only (two ledger reads for all), so it may run before a feed is accepted (src/runs/group-reuse.ts).
   */
  async peekMany(kind: LinkedKind, drafts: ReadonlyArray<VenueDraft | OrganizerDraft>): Promise<Array<number | undefined>> {
    const isVenue = kind === 'venues';
    const keys = drafts.map((d) => (isVenue ? this.venueSlug(d as VenueDraft) : this.organizerSlug(d as OrganizerDraft)));
    const [entries, names] = await Promise.all([this.ledger.getMany(kind, keys), this.ledger.recordedNames(kind, keys)]);
    return drafts.map((d, i) => {
      const known = entries.get(keys[i]!);
      const recorded = names.get(keys[i]!);
      if (!known || recorded === undefined) return undefined;
      const typed = isVenue ? (d as VenueDraft).venue : (d as OrganizerDraft).organizer;
      return this.withoutRequest(known, () => fingerprint(this.bodyOf(kind, d, spelledAs(recorded, typed)))) ? known.id : undefined;
    });
  }

  /** A link's site id: an InlineClaim no event has taken is created on its own now, else awaited. */
  concrete(link: Link): Promise<number | undefined> {
    if (!(link instanceof InlineClaim)) return Promise.resolve(link);
    return link.take() ? this.standalone(link) : link.result;
  }

  /**
   * Items of the same name (several spellings of one address) are written one after the other,
   * so the second finds the first in the site index instead of racing it into a `<name>-2`
   * (the site would even merge them: it de-duplicates by title). A first one still waiting to be
   * created inline is created on its own first.
   */
  private byName(kind: LinkedKind, name: string, fn: () => Promise<Link>): Promise<Link> {
    const k = `${kind}\u0000${termKey(name)}`;
    const next = (this.sameName.get(k) ?? Promise.resolve(undefined)).then((prev) => this.concrete(prev)).then(fn);
    this.sameName.set(k, next.catch(() => undefined));
    return next;
  }

  /**
   * Tells the site index how many of these venues/organizers the ledger does not know, so it can
   * list them all (when that costs fewer requests than looking each one up) before they are resolved.
   */
  async prime(venues: VenueDraft[], organizers: OrganizerDraft[]): Promise<void> {
    const index = this.opts.index;
    // Dry runs too: a listing answers their "would be created or updated" for many items at once.
    if (!index) return;
    const unknown = async (kind: LinkedKind, keys: string[]) => {
      const fresh = [...new Set(keys)].filter((k) => !this.pending.has(runKey(kind, k)) && !this.primed.has(runKey(kind, k)));
      if (fresh.length < 2) return;
      const [known, names] = await Promise.all([this.ledger.getMany(kind, fresh), this.opts.dryRun ? new Map<string, string>() : this.ledger.recordedNames(kind, fresh)]);
      for (const k of fresh) this.primed.set(runKey(kind, k), known.get(k) ?? null);
      for (const [k, name] of names) this.recorded.set(runKey(kind, k), name);
      await index.linked(kind, fresh.filter((k) => !known.has(k)).length);
    };
    await Promise.all([unknown('venues', venues.map((v) => this.venueSlug(v))), unknown('organizers', organizers.map((o) => this.organizerSlug(o)))]);
  }

  /**
   * Which record on the site is this one, without a ledger entry: the listed venues/organizers
   * when the index has them, else a lookup of the slug the site derives from the name, or the
   * one the source gave.
   */
  private async lookup(kind: LinkedKind, name: string, explicitSlug?: string): Promise<LinkedRecord | null> {
    const candidates = slugCandidates(name, explicitSlug);
    const index = this.opts.index;
    const listed = await index?.linked(kind, 0);
    if (index && listed) {
      const found = SiteIndex.findLinked(listed, candidates, name, explicitSlug, sameSiteName);
      // A listing whose pages repeated records left others out: only its finds count (site-index.ts).
      if (found || index.linkedWhole(kind)) return found;
    }
    return this.findOnSite(kind, candidates, name, explicitSlug);
  }

  private async findOnSite(kind: LinkedKind, candidates: string[], name: string, explicitSlug?: string): Promise<LinkedRecord | null> {
    const res = linkedRoute(this.client, kind);
    for (const candidate of candidates) {
      const rec = await res.findBySlug(candidate, { lang: this.opts.lang });
      const recName = (rec as { venue?: string; organizer?: string } | null)?.[linkedNoun(kind)];
      if (rec && (candidate === explicitSlug || sameSiteName(recName ?? '', name))) return rec;
    }
    return null;
  }

  /**
   * After a create decided from the run's listing: a slug `<name>-N` where the name gives `<name>`
   * means a record of that name appeared since the listing (another run). Like a lookup before
   * the create would have, keep that one: trash ours and update it.
   */
  private async settleCollision(kind: LinkedKind, name: string, body: LinkedBody, created: LinkedRecord, explicitSlug?: string): Promise<LinkedRecord> {
    const candidates = slugCandidates(name, explicitSlug);
    const index = this.opts.index;
    const listed = await index?.linked(kind, 0);
    if (!index || !listed) return created;
    const res = linkedRoute(this.client, kind);
    let kept = created;
    // `-N` is WordPress's de-duplication suffix unless the name itself ends in that number
    // (`Haus 12` → `haus-12`, whatever the site makes of its letters).
    const m = created.slug && !candidates.includes(created.slug) ? /^(.+)-(\d+)$/.exec(created.slug) : null;
    const base = m && Number(m[2]) >= 2 && !slugify(name, 200).endsWith(`-${m[2]}`) ? m[1] : undefined;
    if (base) {
      const other = await this.findOnSite(kind, [base], name);
      if (other && other.id !== created.id && other.status !== 'trash') {
        await res.delete(created.id, { lang: this.opts.lang }).catch(() => undefined);
        kept = await updateLinked(this.client, other.id, body, { lang: this.opts.lang });
      }
    }
    if (kept.slug) index.noteLinked(kind, { id: kept.id, slug: kept.slug, name });
    return kept
  }

  /**
   * One identity, several spellings ("Carnival UK", "carnival UK"): the first spelling the ledger
   * recorded for the key is written by every chunk and worker, so none of them undoes another's
   * write and a re-import writes nothing. Only spellings of the same name (termKey) are merged.
   */
  private async spelling(kind: LinkedKind, key: string, name: string): Promise<string> {
    if (this.opts.dryRun) return name; // a dry run records nothing
    // Read ahead by prime() for a re-import's every venue and organizer: one read instead of a claim each.
    const k = runKey(kind, key);
    let recorded = this.recorded.get(k);
    if (recorded === undefined) {
      const claim = await this.ledger.claimName(kind, key, name);
      recorded = claim.name;
      // `recorded` holds the spellings claimed before this run's own claims: upsert tells
      // calsync's records by them.
      if (claim.earlier) this.recorded.set(k, recorded);
    }
    return spelledAs(recorded, name);
  }

  /** The body a venue/organizer is written with, under the spelling its name is written in. */
  private bodyOf(kind: LinkedKind, d: VenueDraft | OrganizerDraft, name: string): LinkedBody {
    const status = { status: this.opts.status };
    return kind === 'venues' ? venueBody({ ...(d as VenueDraft), venue: name }, status) : organizerBody({ ...(d as OrganizerDraft), organizer: name }, status);
  }

  private once(kind: LinkedKind, slug: string, fn: () => Promise<Link>): Promise<Link> {
    return this.pending.get(runKey(kind, slug), fn);
  }

  /** The link venueLink would give, when it has already resolved in this run; else UNSETTLED. */
  venueLinkNow(d: VenueDraft): Link | typeof UNSETTLED {
    return this.pending.now(runKey('venues', this.venueSlug(d)));
  }

  organizerLinkNow(d: OrganizerDraft): Link | typeof UNSETTLED {
    return this.pending.now(runKey('organizers', this.organizerSlug(d)));
  }

  private reportLinked(report: { add(item: Parameters<RunReport['add']>[0]): void }, kind: LinkedKind, name: string, id: number, slug: string): void {
    const label = linkedNoun(kind);
    report.add({ kind, slug, outcome: 'unchanged', siteId: id, reason: `linked to the site's own ${label} "${name}" (id ${id}), not created by calsync: its fields are left as they are (--adopt-linked overwrite replaces them)` });
    this.opts.report.linkExisting({ kind, id, name });
  }

  /**
   * The client never repeats a create it cannot prove did not land, and a venue/organizer create
   * carries no slug of its own to check by. The resolver can check: the executor's retry policy
   * (src/api/executor.ts) calls this lookup of the slug the site derives from the name after an
   * uncertain failure, and repeats the create only if the record is not there.
   */
  private createVerified(kind: LinkedKind, name: string, body: LinkedBody, explicitSlug?: string): Promise<LinkedRecord> {
    return createLinked(this.client, body, { lang: this.opts.lang, verify: (signal) => this.findCreated(kind, name, explicitSlug, signal) });
  }

  /** The record a create of this name may have made: by the slugs it can have, with the same name. */
  private async findCreated(kind: LinkedKind, name: string, explicitSlug: string | undefined, signal: AbortSignal): Promise<LinkedRecord | null> {
    const res = linkedRoute(this.client, kind);
    const field = linkedNoun(kind);
    for (const candidate of slugCandidates(name, explicitSlug)) {
      const rec = await res.findBySlug(candidate, { lang: this.opts.lang, signal });
      const recName = (rec as Record<string, unknown> | null)?.[field];
      if (rec && typeof recName === 'string' && sameSiteName(recName, name)) return rec;
    }
    return null;
  }

  /**
   * An InlineClaim this caller took, created on its own: no event could carry it, or the event
   * that did failed (the site may then hold it already: its de-duplication by title hands that one back).
   */
  async standalone(claim: InlineClaim): Promise<number | undefined> {
    try {
      return await this.completeInline(claim, await this.createVerified(claim.kind, claim.name, claim.body, claim.explicitSlug));
    } catch (err) {
      const label = linkedNoun(claim.kind);
      this.opts.report.add({ kind: claim.kind, slug: claim.key, outcome: 'failed', reason: `${label} "${claim.name}" could not be written: ${(err as Error).message}`, ...(claim.origin ? { origin: claim.origin } : {}) });
      claim.done(undefined);
      return undefined;
    }
  }

  /**
   * A venue/organizer this run wrote: reported (as an earlier delivery's write when the ledger says
   * so, src/write/job-mark.ts), recorded in the ledger, and known as seen on the site (usable).
   */
  private async recordWrite(w: { kind: LinkedKind; key: string; fp: string; record: { id: number; slug?: string; modified_utc?: string }; outcome: WriteOutcome; known?: LedgerEntry; origin?: Origin }): Promise<void> {
    const { kind, key, record } = w;
    const mark = markedWrite(w.outcome, w.known, this.opts.mark);
    this.opts.report.add({ kind, slug: record.slug ?? key, outcome: mark.outcome, siteId: record.id, ...(mark.earlier ? { earlier: true } : {}), ...(w.origin ? { origin: w.origin } : {}) });
    await this.ledger.set(kind, key, { fp: w.fp, id: record.id, slug: record.slug, modified: record.modified_utc, ...mark.stamp, at: new Date().toISOString() });
    this.seenOnSite.add(`${kind}:${record.id}`);
  }

  /**
   * A claimed record the site created (inline in an event, or on its own): settled like any
   * create (a `<name>-N` means another run made one meanwhile: that one is kept), reported,
   * recorded in the ledger, and its id handed to every event waiting for it.
   */
  async completeInline(claim: InlineClaim, created: LinkedRecord): Promise<number> {
    const { kind, key, name, body, explicitSlug, origin } = claim;
    try {
      const record = await this.settleCollision(kind, name, body, created, explicitSlug);
      // A claim is made for a record the ledger does not hold: there is no earlier entry to go by.
      await this.recordWrite({ kind, key, fp: claim.fp, record, outcome: record === created ? 'created' : 'updated', origin });
      claim.done(record.id);
      return record.id;
    } catch (err) {
      this.seenOnSite.add(`${kind}:${created.id}`);
      claim.done(created.id);
      throw err;
    }
  }

  private async ledgerEntry(kind: LinkedKind, key: string): Promise<LedgerEntry | undefined> {
    const k = runKey(kind, key);
    const primed = this.primed.get(k);
    if (primed === undefined) return (await this.ledger.getMany(kind, [key])).get(key);
    this.primed.delete(k);
    return primed ?? undefined;
  }

  /** --adopt-linked link (the default): a record calsync did not create is linked, its fields left alone. */
  private get linkOnly(): boolean {
    return (this.opts.adoptLinked ?? 'link') === 'link';
  }

  /**
   * How a venue/organizer the ledger holds resolves without a request, the one rule for upsert and
   * peekMany: 'linked', someone else's record that calsync adopted and (--adopt-linked link) leaves
   * as it is; 'unchanged', calsync's own, last written with these fields (the fingerprint `fp()`);
   * undefined, it needs a request (changed, or adopted under --adopt-linked overwrite). `fp` is
   * called for calsync's own records only (peekMany builds the body for it).
   */
  private withoutRequest(known: LedgerEntry, fp: () => string): 'linked' | 'unchanged' | undefined {
    if (known.adopted) return this.linkOnly ? 'linked' : undefined;
    return known.fp === fp() ? 'unchanged' : undefined;
  }

  /**
   * A venue/organizer of the ledger that is in the site's trash, as the ledger recorded it or as
   * just `found`: not written nor created again, and resolved to its id as planned, without a
   * request. The events that link it are written without it (src/write/linked-trash.ts), and those
   * the feed does not change are left as they are; `usable` checks on the first such write whether
   * it is still in the trash.
   */
  private async inTrash(report: { add(item: Parameters<RunReport['add']>[0]): void }, kind: LinkedKind, key: string, name: string, known: LedgerEntry, found: boolean): Promise<number> {
    const k = `${kind}:${known.id}`;
    this.unchecked.set(k, { kind, key, name, entry: { ...known, trashed: true } });
    // Not written either way; whether it is still in the trash is known only once an event write asks (usable).
    const when = found ? '' : ' when calsync last looked';
    report.add({ kind, slug: known.slug ?? key, outcome: 'skipped', siteId: known.id, reason: `in the site's trash${when}: not written nor created again, and no event links it while it is there` });
    if (found) {
      this.checks.set(k, Promise.resolve({ left: 'trash' }));
      this.warnTrashed(kind, name, known.id);
      if (!this.opts.dryRun) await this.ledger.set(kind, key, { ...known, trashed: true });
    }
    return known.id;
  }

  private warnTrashed(kind: LinkedKind, name: string | undefined, id: number): void {
    if (this.warned.has(`${kind}:${id}`)) return;
    this.warned.add(`${kind}:${id}`);
    const label = linkedNoun(kind);
    this.opts.report.warn(`${label}${name === undefined ? '' : ` "${name}"`} (id ${id}) is in the site's trash: calsync does not create it again nor link it, and writes the events naming it without it; restore it from the site's trash to have it linked again (the next run that writes those events links it)`);
  }

  /**
   * Whether an event write may link this venue/organizer: false when it is in the site's trash.
   * Only those this run neither wrote nor read on the site are looked at (those it took from the
   * ledger without a request, and the ids of plans another job made), once per run each
   * (a whole listing of the site's venues/organizers answers for all those it lists; the others
   * take one read), so an unchanged re-import, which writes no event, costs nothing. A record found
   * trashed is recorded and reported; one the ledger had as trashed and that is back is recorded
   * as back.
   */
  usable(kind: LinkedKind, id: number): Promise<LinkUse> {
    const k = `${kind}:${id}`;
    if (this.opts.dryRun || this.seenOnSite.has(k)) return Promise.resolve({ id });
    let check = this.checks.get(k);
    // An id this run did not resolve at all comes from a plan another job made (a queued sync's pages): looked at the same way.
    if (!check) this.checks.set(k, (check = this.checkUsable(kind, id, this.unchecked.get(k))));
    return check;
  }

  private async checkUsable(kind: LinkedKind, id: number, known?: Unchecked): Promise<LinkUse> {
    const state = await this.siteState(kind, id);
    if (state === 'gone') return this.goneForGood(kind, id, known);
    const trashed = state === 'trash';
    if (trashed) this.warnTrashed(kind, known?.name, id);
    const use: LinkUse = trashed ? { left: 'trash' } : { id };
    if (!known || trashed === !!known.entry.trashed) return use;
    const { trashed: _was, ...rest } = known.entry;
    await this.ledger.set(kind, known.key, trashed ? { ...known.entry, trashed: true } : rest);
    return use;
  }

  private async siteState(kind: LinkedKind, id: number): Promise<'there' | 'trash' | 'gone'> {
    const index = this.opts.index;
    let wanted = 0;
    for (const u of this.unchecked.values()) if (u.kind === kind) wanted++;
    const listed = await index?.linked(kind, wanted);
    // The listing holds every status but the trash: a record it lists is not in it.
    if (listed) for (const e of listed.values()) if (e.id === id) return 'there';
    const res = linkedRoute(this.client, kind);
    try {
      return (await res.get(id, { lang: this.opts.lang })).status === 'trash' ? 'trash' : 'there';
    } catch (err) {
      // Unreadable: the write goes on as it would have (and says so if the site refuses the id).
      const gone = goneAs(err);
      return gone === 'trashed' ? 'trash' : gone === 'deleted' ? 'gone' : 'there';
    }
  }

  /**
   * A venue/organizer the site no longer has at all (deleted for good, its trash emptied, a site
   * restored from an older backup), whose id the ledger kept: the site refuses every event write
   * naming that id, so it is created again from the feed under a new id, as an event the site lost
   * is (SiteWriter.writeOne), and the ledger entry follows. An id this run has no fields for (one
   * from another job's plan) is left out of the write instead.
   */
  private async goneForGood(kind: LinkedKind, id: number, known?: Unchecked): Promise<LinkUse> {
    const label = linkedNoun(kind);
    if (!known?.body || this.opts.dryRun) return { left: 'gone' };
    this.opts.report.warn(`${label} "${known.name}" (id ${id}) is no longer on the site (deleted for good): created again from the feed for the events that name it`);
    await this.ledger.remove(kind, known.key);
    // It was reported unchanged when it was planned; it is reported as written again below.
    this.opts.report.withdraw(kind, known.entry.slug ?? known.key);
    const created = await this.concrete(await this.upsert(kind, known.key, known.name, known.body, known.origin, known.explicitSlug));
    if (created === undefined) return { left: 'gone' };
    this.recreated++;
    return { id: created };
  }

  private async upsert(kind: LinkedKind, key: string, name: string, body: LinkedBody, origin?: Origin, explicitSlug?: string): Promise<Link> {
    const { lang } = this.opts;
    const report = { add: (item: Parameters<RunReport['add']>[0]) => this.opts.report.add(origin ? { ...item, origin } : item) };
    const label = linkedNoun(kind);
    const fp = fingerprint(body);
    const known = await this.ledgerEntry(kind, key);
    if (known?.trashed) return this.inTrash(report, kind, key, name, known, false);
    const settled = known && this.withoutRequest(known, () => fp);
    if (known && settled) this.unchecked.set(`${kind}:${known.id}`, { kind, key, name, entry: known, body, origin, explicitSlug });
    if (known && settled === 'linked') {
      this.reportLinked(report, kind, name, known.id, known.slug ?? key);
      return known.id;
    }
    if (known && settled === 'unchanged') {
      // Written by an earlier delivery of this run's job (a worker killed under it): what that did.
      const earlier = earlierWrite(known, this.opts.mark);
      report.add({ kind, slug: known.slug ?? key, outcome: earlier ?? 'unchanged', siteId: known.id, ...(earlier ? { earlier: true } : {}) });
      return known.id;
    }
    const res = linkedRoute(this.client, kind);
    try {
      // Which record on the site is this one? The ledger knows its id; without a ledger (Redis
      // lost) look for the slug the site derives from the name, or the one the source gave.
      let existing: { id: number; slug?: string; status?: string } | null = null;
      if (known) existing = await res.get(known.id, { lang }).catch((err) => (goneAs(err) === 'trashed' ? { id: known.id, status: 'trash' } : isGone(err) ? null : Promise.reject(err)));
      // calsync's own (or one it linked) sits in the site's trash: deleted there on purpose.
      if (known && existing?.status === 'trash') return await this.inTrash(report, kind, key, name, known, true);
      if (!existing) existing = await this.lookup(kind, name, explicitSlug);
      // Not in the ledger, but an earlier run of this source claimed its spelling (spelling(), just
      // before its first write): that run wrote it and was stopped before recording it (a venue
      // created inside an event create that a kill cut off). Calsync's own, not the site's people's.
      const theirs = existing && existing.status !== 'trash' && !known && this.linkOnly && !this.recorded.has(runKey(kind, key));
      if (this.opts.dryRun && !theirs) {
        report.add({ kind, slug: existing?.slug ?? key, outcome: existing ? 'updated' : 'created', reason: existing ? 'would be updated (dry run)' : 'would be created (dry run)' });
        return existing?.id ?? this.dryRunIds--;
      }
      if (existing && theirs) {
        // Someone else's record (not in the ledger): link it, leave its fields alone (a dry run says so too).
        if (!this.opts.dryRun) await this.ledger.set(kind, key, { fp, id: existing.id, slug: existing.slug, adopted: true, at: new Date().toISOString() });
        this.seenOnSite.add(`${kind}:${existing.id}`);
        this.reportLinked(report, kind, name, existing.id, existing.slug ?? key);
        return existing.id;
      }
      let record: { id: number; slug?: string; modified_utc?: string } | null = null;
      let outcome: WriteOutcome = 'updated';
      if (existing && existing.status !== 'trash') {
        // A listed record may have been deleted on the site since the listing: then create it.
        record = await updateLinked(this.client, existing.id, body, { lang }).catch((err) => (known || !isGone(err) ? Promise.reject(err) : null));
      }
      if (!record && !existing && this.opts.inline) return new InlineClaim({ kind, key, name, body, fp, origin, explicitSlug });
      if (!record) {
        // The site may hand back an existing record with the same details (its de-duplication).
        const created = await this.createVerified(kind, name, body, explicitSlug);
        record = await this.settleCollision(kind, name, body, created, explicitSlug);
        if (record === created) outcome = 'created';
      }
      await this.recordWrite({ kind, key, fp, record, outcome, known, origin });
      return record.id;
    } catch (err) {
      report.add({ kind, slug: key, outcome: 'failed', reason: `${label} "${name}" could not be written: ${(err as Error).message}` });
      return undefined;
    }
  }
}


