import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { EventDraft, Normalized, Origin } from '../model/draft.ts';
import { boundsHold, windowSeconds, type RecordableGroup, type ReusedGroup, type ReusedGroupMeta } from '../sources/ics/reuse.ts';
import type { LedgerSnapshot } from '../write/ledger-snapshot.ts';
import { compiled } from '../util/compiled.ts';
import { keptTerms } from '../write/terms.ts';
import type { GroupLinkDraft, GroupLinkKind, SiteWriter } from '../write/writer.ts';
import type { RunReport } from '../report/report.ts';
import { parsedState, type StateStore } from './fetch-state.ts';

/**
 * An ICS re-import that does not normalize the UID groups it wrote last time, unchanged. After a
 * clean run, each group whose drafts were all written or found unchanged is recorded: its hash (its
 * VEVENTs' text, the file's zones and the options: src/sources/ics/reuse.ts), how far the window may
 * move before its drafts change, its events' slugs, site ids and origins, and the site ids its
 * venues, organizers and terms had. The next run (the last one clean) hands the parser the hashes of the
 * records that still hold (window within bounds, every slug in the ledger, every link resolving,
 * without a write, to the id it had); those groups are not normalized, and their events are reported
 * unchanged as a normalized unchanged event is. Anything else normalizes the group again, as before.
 */

const LinkKind = z.enum(['venues', 'organizers', 'categories', 'tags']);

const GroupRecord = z.object({
  /** The window (UTC seconds) it was made in, and the bounds a later window must stay under. */
  from: z.number(),
  to: z.number(),
  fromHi: z.number(),
  toHi: z.number(),
  outcomes: z.string(),
  series: z.number(),
  produced: z.number(),
  /** Recurrence work its expansion spent (src/sources/ics/reuse.ts: the file's budget counts it). */
  work: z.number(),
  /**
   * Per draft: slug, index of its VEVENT in the group, site id, occurrence (null: none), and its
   * origin UID (null: none) only where that is not the group's UID.
   */
  drafts: z.array(z.tuple([z.string(), z.number().int().min(0), z.number().int(), z.string().nullable()], z.string().nullable())),
  /** Its links: key in the records' link table (its kind first: linkKeyOf), site id. */
  links: z.array(z.tuple([z.string(), z.number()])),
});
type GroupRecord = z.infer<typeof GroupRecord>;

const Records = z.object({
  v: z.literal(2),
  /** Link drafts by key, shared by the groups naming them. */
  links: z.record(z.string(), z.unknown()),
  groups: z.record(z.string(), GroupRecord),
});
type Records = z.infer<typeof Records>;

/** A link's key in the records' table: its kind and its draft's content. */
function linkKeyOf(kind: GroupLinkKind, d: GroupLinkDraft): string {
  return `${kind}:${createHash('sha256').update(JSON.stringify(d)).digest('base64url').slice(0, 22)}`;
}

export class GroupReuse {
  private readonly state: StateStore;
  private readonly key: string;
  private records: Records = { v: 2, links: {}, groups: {} };
  /** The groups offered to the parser, with their recorded outcome. */
  private readonly offered = new Map<string, GroupRecord>();
  /** The records' JSON text as stored (undefined: none, or unreadable). */
  private stored?: Promise<string | undefined>;

  constructor(state: StateStore, scope: { site: string; lang: string; source: string }) {
    this.state = state;
    this.key = `groups:${scope.site}:${scope.lang}:${scope.source}`;
  }

  /**
   * The groups the parser may leave alone for this window: recorded, within their window bounds,
   * every slug still in the ledger and every link resolving (without a write) to the id recorded.
   * `snapshot`: the ledger's event entries, read while the feed is read (none: too many to hold).
   */
  async offer(window: { from: Date; to: Date }, snapshot: Promise<LedgerSnapshot | undefined>, writer: SiteWriter): Promise<Map<string, ReusedGroupMeta>> {
    const [text, known] = await Promise.all([this.read(), snapshot]);
    const parsed = compiled(Records).safeParse(parsedState(text));
    if (!parsed.success || !known) return new Map();
    this.records = parsed.data;
    const w = windowSeconds(window);
    const fits: Array<[string, GroupRecord]> = [];
    const linkKeys = new Set<string>();
    for (const [hash, r] of Object.entries(this.records.groups)) {
      if (!boundsHold(r, w) || !r.drafts.every(([slug]) => known.holds(slug))) continue;
      fits.push([hash, r]);
      for (const [key] of r.links) linkKeys.add(key);
    }
    const ids = await this.currentIds(linkKeys, writer);
    const out = new Map<string, ReusedGroupMeta>();
    for (const [hash, r] of fits) {
      if (!r.links.every(([key, id]) => ids.get(key) === id)) continue;
      this.offered.set(hash, r);
      out.set(hash, { outcomes: r.outcomes, series: r.series, produced: r.produced, work: r.work, drafts: r.drafts.length });
    }
    return out;
  }

  /**
   * Starts reading the records the offer needs. A run calls it before it fetches its feed, so the
   * transfer (a few MB on a large feed) overlaps the fetch; the offer parses them, beside the parser
   * thread's reading. A feed found unchanged leaves them unused.
   */
  read(): Promise<string | undefined> {
    this.stored ??= this.state.text(this.key).catch(() => undefined);
    return this.stored;
  }

  /** Each distinct link once, all of a kind together: its id now (undefined: missing, changed, or not in the table). */
  private async currentIds(keys: ReadonlySet<string>, writer: SiteWriter): Promise<Map<string, number | undefined>> {
    const byKind = new Map<GroupLinkKind, string[]>();
    for (const key of keys) {
      const kind = LinkKind.safeParse(key.slice(0, key.indexOf(':')));
      if (!kind.success || this.records.links[key] === undefined) continue;
      const list = byKind.get(kind.data);
      if (list) list.push(key);
      else byKind.set(kind.data, [key]);
    }
    const ids = new Map<string, number | undefined>();
    await Promise.all([...byKind].map(async ([kind, list]) => {
      const found = await writer.peekLinks(kind, list.map((key) => this.records.links[key] as GroupLinkDraft)).catch(() => []);
      list.forEach((key, i) => ids.set(key, found[i]));
    }));
    return ids;
  }

  /**
   * The events of the groups the parser left alone, as a normalized unchanged event is: admitted
   * (seen, so not retired; a duplicate identity reported as one), reported unchanged with its site id
   * and its VEVENT's line now, and its links resolved as an event's are (reported once per run).
   * The site ids are the recorded ones: the ledger holds the same, since only a clean run of this
   * source writes its events' entries (under its run lock) and each one replaces the records.
   */
  async standIn(reused: readonly ReusedGroup[], sourceName: string, writer: SiteWriter, report: RunReport): Promise<void> {
    const links = new Set<string>();
    for (const g of reused) {
      const r = this.offered.get(g.hash);
      if (!r) throw new Error(`the parser reused group ${g.hash}, which was not offered`);
      for (const [key] of r.links) links.add(key);
      for (const [slug, vi, siteId, occurrence, uid] of r.drafts) {
        const origin: Origin = { source: sourceName, line: g.lines[vi], uid: (uid === undefined ? g.uid : uid) ?? undefined, occurrence: occurrence ?? undefined };
        if (writer.admit(slug, origin)) report.add({ kind: 'events', slug, origin, outcome: 'unchanged', siteId });
      }
    }
    await writer.touchLinks([...links].map((key) => [key.slice(0, key.indexOf(':')) as GroupLinkKind, this.records.links[key] as GroupLinkDraft] as const));
  }

  /**
   * After a clean run: the groups reused, and those normalized that may be recorded (every link
   * settled to an id, no term left out by the limits per event), replace the records.
   */
  async record(
    recordable: readonly RecordableGroup[],
    reused: readonly ReusedGroup[],
    run: { window: { from: Date; to: Date }; items: readonly Normalized<EventDraft>[]; writer: SiteWriter; report: RunReport; maxEntries: number },
  ): Promise<void> {
    const { window, items, writer } = run;
    // Nothing new and nothing gone: the records stand as they are (an unchanged re-import writes nothing).
    if (recordable.length === 0 && reused.length === Object.keys(this.records.groups).length) return;
    // A feed too big for the ledger snapshot is never offered its records (offer): none are kept.
    if (items.length > run.maxEntries) return;
    const written = writtenSlugs(run.report);
    const next: Records = { v: 2, links: {}, groups: {} };
    // Drafts share their venue, organizer and term objects: each object's key is hashed, and its
    // id looked up, once (a first import of 17k occurrences spent 80-90 ms here, after its last write).
    const linked = new WeakMap<object, [string, number] | null>();
    const link = (kind: GroupLinkKind, d: GroupLinkDraft): [string, number] | null => {
      let got = linked.get(d);
      if (got === undefined) {
        const id = writer.linkIdNow(kind, d);
        got = id === undefined ? null : [linkKeyOf(kind, d), id];
        linked.set(d, got);
      }
      if (got) next.links[got[0]] ??= d;
      return got;
    };
    for (const g of reused) {
      const r = this.offered.get(g.hash)!;
      next.groups[g.hash] = r;
      for (const [key] of r.links) next.links[key] ??= this.records.links[key];
    }
    const w = windowSeconds(window);
    for (const g of recordable) {
      const r = groupRecord(g, w, { items, written }, writer, link);
      if (r) next.groups[g.hash] = r;
    }
    await this.state.set(this.key, next);
  }
}

/**
 * The events this run wrote or found unchanged, with their site ids, each reported only so: a group
 * with an event the writer skipped (trashed on the site, edited there under --on-edit preserve) or
 * failed is not recorded, since normalizing it next time may write what this run did not.
 */
function writtenSlugs(report: RunReport): Map<string, number> {
  const ok = new Map<string, number>();
  const not = new Set<string>();
  for (const it of report.items) {
    if (it.kind !== 'events' || it.slug === undefined) continue;
    if ((it.outcome === 'created' || it.outcome === 'updated' || it.outcome === 'unchanged') && it.siteId !== undefined) ok.set(it.slug, it.siteId);
    else not.add(it.slug);
  }
  for (const slug of not) ok.delete(slug);
  return ok;
}

/** A normalized group's record, or undefined when a link has no id yet or a term was left out. */
function groupRecord(
  g: RecordableGroup,
  w: { from: number; to: number },
  run: { items: readonly Normalized<EventDraft>[]; written: ReadonlyMap<string, number> },
  writer: Pick<SiteWriter, 'slugOf'>,
  link: (kind: GroupLinkKind, d: GroupLinkDraft) => [string, number] | null,
): GroupRecord | undefined {
  const drafts: GroupRecord['drafts'] = [];
  const links = new Map<string, [string, number]>();
  const settled = (kind: GroupLinkKind, d: GroupLinkDraft): boolean => {
    const got = link(kind, d);
    if (got) links.set(got[0], got);
    return got !== null;
  };
  for (let i = g.start; i < g.end; i++) {
    const it = run.items[i]!;
    if (!it.ok) return undefined;
    const d = it.draft;
    const slug = writer.slugOf(d);
    const siteId = run.written.get(slug);
    if (siteId === undefined) return undefined;
    if (keptTerms(d.categories) !== d.categories || keptTerms(d.tags) !== d.tags) return undefined;
    const all =
      d.categories.every((t) => settled('categories', t)) && d.tags.every((t) => settled('tags', t)) &&
      (!d.venue || settled('venues', d.venue)) && d.organizers.every((o) => settled('organizers', o));
    if (!all) return undefined;
    const vi = g.lines.indexOf(d.origin.line ?? -1);
    if (vi < 0) return undefined;
    const uid = d.origin.uid ?? null;
    drafts.push(uid === g.uid ? [slug, vi, siteId, d.origin.occurrence ?? null] : [slug, vi, siteId, d.origin.occurrence ?? null, uid]);
  }
  return { ...w, fromHi: g.fromHi, toHi: g.toHi, outcomes: g.outcomes, series: g.series, produced: g.produced, work: g.work, drafts, links: [...links.values()] };
}
