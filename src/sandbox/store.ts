import type {
  Attachment, EventRecord, OrganizerRecord, PostKind, PostRecord, TermRecord, Taxonomy, VenueRecord,
} from './records.ts';

/** Everything the store holds, as persisted. */
export interface Snapshot {
  format: 1;
  postSeq: number;
  termSeq: number;
  events: EventRecord[];
  venues: VenueRecord[];
  organizers: OrganizerRecord[];
  terms: TermRecord[];
  attachments: Attachment[];
}

/** An event's place in the start order; a rewritten event gets a new slot and the old one dies. */
interface Slot {
  ev: EventRecord;
  dead: boolean;
}

function compareEvents(a: EventRecord, b: EventRecord): number {
  return a.start < b.start ? -1 : a.start > b.start ? 1 : a.id - b.id;
}

/**
 * The in-memory site. Posts share one id sequence (like wp_posts, across languages and kinds);
 * terms have their own (like wp_terms). Indexes are kept up to date on every write so reads stay
 * cheap at 100k events: slug → ids per kind and language, events sorted by start per language,
 * and how many live events use each term, venue and organizer.
 */
export class Store {
  postSeq = 4; // a fresh WordPress already holds posts 1–3
  termSeq = 2; // …and term 1 ("Uncategorized")
  readonly events = new Map<number, EventRecord>();
  readonly venues = new Map<number, VenueRecord>();
  readonly organizers = new Map<number, OrganizerRecord>();
  readonly terms = new Map<number, TermRecord>();
  readonly attachments = new Map<number, Attachment>();
  /** Bumped on every write; list caches key on it. */
  version = 0;
  /** Called after every write (persistence hooks in here). */
  onWrite: () => void = () => {};

  private readonly slugs = new Map<string, number[]>();
  private readonly slugHints = new Map<string, number>();
  private readonly order = new Map<string, { live: Slot[]; pending: Slot[]; dead: number; view: EventRecord[] }>();
  private readonly slots = new Map<EventRecord, Slot>();
  private readonly links = new Map<number, number>();

  nextPostId(): number {
    return this.postSeq++;
  }

  nextTermId(): number {
    return this.termSeq++;
  }

  private mapOf(kind: PostKind): Map<number, PostRecord> {
    return (kind === 'event' ? this.events : kind === 'venue' ? this.venues : this.organizers) as Map<number, PostRecord>;
  }

  /** Which kind of post an id belongs to, in any language. */
  kindOf(id: number): PostKind | 'attachment' | undefined {
    if (this.events.has(id)) return 'event';
    if (this.venues.has(id)) return 'venue';
    if (this.organizers.has(id)) return 'organizer';
    if (this.attachments.has(id)) return 'attachment';
    return undefined;
  }

  // -------------------------------------------------------------------------------------------
  // slugs

  private slugKey(kind: PostKind, lang: string, slug: string): string {
    return `${kind}\u0000${lang}\u0000${slug}`;
  }

  /** The lowest-id post with this exact slug (drafts may share one). */
  findBySlug<K extends PostKind>(kind: K, lang: string, slug: string): Extract<PostRecord, { kind: K }> | undefined {
    const ids = this.slugs.get(this.slugKey(kind, lang, slug));
    return ids?.length ? (this.mapOf(kind).get(ids[0]) as Extract<PostRecord, { kind: K }>) : undefined;
  }

  /** WordPress's wp_unique_post_slug: `<slug>`, else `<slug>-2`, `<slug>-3`, … */
  uniqueSlug(kind: PostKind, lang: string, desired: string, selfId?: number): string {
    const free = (s: string): boolean => {
      const ids = this.slugs.get(this.slugKey(kind, lang, s));
      return !ids || ids.every((id) => id === selfId);
    };
    if (free(desired)) return desired;
    const hintKey = this.slugKey(kind, lang, desired);
    // The hint keeps 100k same-titled events from probing -2, -3, … from the start each time.
    let n = this.slugHints.get(hintKey) ?? 2;
    while (!free(`${desired}-${n}`)) n++;
    this.slugHints.set(hintKey, n + 1);
    return `${desired}-${n}`;
  }

  private indexSlug(rec: PostRecord): void {
    if (!rec.slug) return;
    const key = this.slugKey(rec.kind, rec.lang, rec.slug);
    const ids = this.slugs.get(key);
    if (!ids) this.slugs.set(key, [rec.id]);
    else {
      ids.push(rec.id);
      ids.sort((a, b) => a - b);
    }
  }

  private unindexSlug(rec: PostRecord): void {
    if (!rec.slug) return;
    const key = this.slugKey(rec.kind, rec.lang, rec.slug);
    const ids = this.slugs.get(key);
    if (!ids) return;
    const i = ids.indexOf(rec.id);
    if (i >= 0) ids.splice(i, 1);
    if (!ids.length) this.slugs.delete(key);
  }

  // -------------------------------------------------------------------------------------------
  // events sorted by start, per language
  //
  // Writes must stay O(1) at 100k events (a splice per insert is not), so a write only drops the
  // event's old slot (marks it dead) and queues a new one; the next read sorts the queue and merges
  // it into the sorted list in one linear pass.

  /** All events of a language (any status), by start then id. Do not mutate. */
  sortedEvents(lang: string): readonly EventRecord[] {
    const order = this.order.get(lang);
    if (!order) return [];
    if (order.pending.length || order.dead) {
      order.pending.sort((a, b) => compareEvents(a.ev, b.ev));
      const merged: Slot[] = [];
      const { live, pending } = order;
      let i = 0;
      let j = 0;
      while (i < live.length || j < pending.length) {
        const a = live[i];
        const b = pending[j];
        if (a?.dead) i++;
        else if (b?.dead) j++;
        else if (b === undefined || (a !== undefined && compareEvents(a.ev, b.ev) <= 0)) merged.push(live[i++]);
        else merged.push(pending[j++]);
      }
      order.live = merged;
      order.pending = [];
      order.dead = 0;
      order.view = merged.map((s) => s.ev);
    }
    return order.view;
  }

  private sortIn(ev: EventRecord): void {
    let order = this.order.get(ev.lang);
    if (!order) this.order.set(ev.lang, (order = { live: [], pending: [], dead: 0, view: [] }));
    const slot: Slot = { ev, dead: false };
    order.pending.push(slot);
    this.slots.set(ev, slot);
  }

  private sortOut(ev: EventRecord): void {
    const slot = this.slots.get(ev);
    const order = this.order.get(ev.lang);
    if (!slot || !order) return;
    slot.dead = true;
    order.dead++;
    this.slots.delete(ev);
  }

  // -------------------------------------------------------------------------------------------
  // link counts (term count, "has events")

  /** Number of non-trashed events using this term, venue or organizer. */
  linkCount(id: number): number {
    return this.links.get(id) ?? 0;
  }

  private countLinks(ev: EventRecord, delta: number): void {
    if (ev.status === 'trash') return;
    const ids = [...ev.categories, ...ev.tags, ...ev.organizers];
    if (ev.venue !== null) ids.push(ev.venue);
    for (const id of ids) this.links.set(id, (this.links.get(id) ?? 0) + delta);
  }

  // -------------------------------------------------------------------------------------------
  // writes

  private index(rec: PostRecord): void {
    this.indexSlug(rec);
    if (rec.kind === 'event') {
      this.sortIn(rec);
      this.countLinks(rec, 1);
    }
  }

  private unindex(rec: PostRecord): void {
    this.unindexSlug(rec);
    if (rec.kind === 'event') {
      this.sortOut(rec);
      this.countLinks(rec, -1);
    }
  }

  private touched(): void {
    this.version++;
    this.onWrite();
  }

  addPost(rec: PostRecord): void {
    this.mapOf(rec.kind).set(rec.id, rec);
    this.index(rec);
    this.touched();
  }

  /** Applies `mutate` to a stored post, keeping every index right. */
  changePost<T extends PostRecord>(rec: T, mutate: (r: T) => void): void {
    this.unindex(rec);
    try {
      mutate(rec);
    } finally {
      this.index(rec);
      this.touched();
    }
  }

  /** Deletes a post for good (WordPress core's `DELETE /wp/v2/<type>/<id>?force=true`): events that linked it keep the dangling id. */
  deletePost(rec: PostRecord): void {
    this.unindex(rec);
    this.mapOf(rec.kind).delete(rec.id);
    this.touched();
  }

  addTerm(term: TermRecord): void {
    this.terms.set(term.id, term);
    this.touched();
  }

  changeTerm(term: TermRecord, mutate: (t: TermRecord) => void): void {
    mutate(term);
    this.touched();
  }

  /** Deletes a term for good and unlinks it from every event of its language. */
  deleteTerm(term: TermRecord): void {
    this.terms.delete(term.id);
    const key = term.taxonomy === 'tribe_events_cat' ? 'categories' : 'tags';
    for (const ev of this.sortedEvents(term.lang)) {
      if (ev[key].includes(term.id)) {
        this.countLinks(ev, -1);
        ev[key] = ev[key].filter((id) => id !== term.id);
        this.countLinks(ev, 1);
      }
    }
    for (const t of this.terms.values()) if (t.parent === term.id) t.parent = term.parent;
    this.touched();
  }

  termsOf(taxonomy: Taxonomy, lang: string): TermRecord[] {
    const out: TermRecord[] = [];
    for (const t of this.terms.values()) if (t.taxonomy === taxonomy && t.lang === lang) out.push(t);
    return out;
  }

  /** WordPress term_exists(): by slug, then by name. */
  findTerm(taxonomy: Taxonomy, lang: string, nameOrSlug: string): TermRecord | undefined {
    const lower = nameOrSlug.toLowerCase();
    const all = this.termsOf(taxonomy, lang);
    return all.find((t) => t.slug === lower) ?? all.find((t) => t.name.toLowerCase() === lower);
  }

  /** Image "sideloading": one attachment per original URL. */
  attachmentFor(url: string): Attachment {
    for (const a of this.attachments.values()) if (a.url === url) return a;
    const ext = /\.([a-z0-9]{2,5})(?:$|[?#])/i.exec(new URL(url).pathname)?.[1]?.toLowerCase() ?? 'jpg';
    const a: Attachment = { id: this.nextPostId(), url, extension: ext };
    this.attachments.set(a.id, a);
    this.touched();
    return a;
  }

  // -------------------------------------------------------------------------------------------
  // whole-store operations

  snapshot(): Snapshot {
    return {
      format: 1,
      postSeq: this.postSeq,
      termSeq: this.termSeq,
      events: [...this.events.values()],
      venues: [...this.venues.values()],
      organizers: [...this.organizers.values()],
      terms: [...this.terms.values()],
      attachments: [...this.attachments.values()],
    };
  }

  /** Drops every record. The id sequences go on, so ids never come back with other meanings. */
  clear(): void {
    for (const m of [this.events, this.venues, this.organizers, this.terms, this.attachments]) m.clear();
    this.slugs.clear();
    this.slugHints.clear();
    this.order.clear();
    this.slots.clear();
    this.links.clear();
    this.touched();
  }

  load(s: Snapshot): void {
    this.clear();
    this.postSeq = Math.max(this.postSeq, s.postSeq);
    this.termSeq = Math.max(this.termSeq, s.termSeq);
    for (const a of s.attachments) this.attachments.set(a.id, a);
    for (const t of s.terms) this.terms.set(t.id, t);
    for (const r of [...s.venues, ...s.organizers]) {
      this.mapOf(r.kind).set(r.id, r);
      this.indexSlug(r);
    }
    for (const ev of s.events) {
      this.events.set(ev.id, ev);
      this.indexSlug(ev);
      this.countLinks(ev, 1);
      this.sortIn(ev);
    }
    this.version++;
  }
}
