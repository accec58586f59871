import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { EventDraft, Normalized, Origin } from '../model/draft.ts';
import { boundsHold, windowSeconds, type RecordableGroup, type ReusedGroup, type ReusedGroupMeta } from '../sources/ics/reuse.ts';
import type { Ledger, LedgerEntry } from '../write/ledger.ts';
import { compiled } from '../util/compiled.ts';
import { keptTerms } from '../write/terms.ts';
import type { GroupLinkDraft, GroupLinkKind, SiteWriter } from '../write/writer.ts';
import type { RunReport } from '../report/report.ts';
import type { StateStore } from './fetch-state.ts';

/**
 * An ICS re-import that does not normalize the UID groups it wrote last time, unchanged. After a
 * clean run, each group whose drafts were all written or found unchanged is recorded: its hash (its
 * VEVENTs' text, the file's zones and the options: src/sources/ics/reuse.ts), how far the window may
 * move before its drafts change, its events' slugs and origins, and the site ids its venues,
 * organizers and terms had. The next run (the last one clean) hands the parser the hashes of the
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
  /** Per draft: slug, index of its VEVENT in the group, origin UID and occurrence (null: none). */
  drafts: z.array(z.tuple([z.string(), z.number().int().min(0), z.string().nullable(), z.string().nullable()])),
  /** Its links: kind, key in the records' link table, site id. */
  links: z.array(z.tuple([LinkKind, z.string(), z.number()])),
});
type GroupRecord = z.infer<typeof GroupRecord>;

const Records = z.object({
  v: z.literal(1),
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
  private records: Records = { v: 1, links: {}, groups: {} };
  /** The groups offered to the parser, with their recorded outcome. */
  private readonly offered = new Map<string, GroupRecord>();

  constructor(state: StateStore, scope: { site: string; lang: string; source: string }) {
    this.state = state;
    this.key = `groups:${scope.site}:${scope.lang}:${scope.source}`;
  }

  /**
   * The groups the parser may leave alone for this window: recorded, within their window bounds,
   * every slug still in the ledger and every link resolving (without a write) to the id recorded.
   * Only the ledger's slugs are read here: its entries (a snapshot of at most `maxEntries`) are read
   * while the feed is parsed.
   */
  async offer(window: { from: Date; to: Date }, ledger: Ledger, writer: SiteWriter, maxEntries: number): Promise<Map<string, ReusedGroupMeta>> {
    const [stored, known] = await Promise.all([this.state.get(this.key).catch(() => undefined), ledger.slugs('events')]);
    const parsed = compiled(Records).safeParse(stored);
    // Beyond maxEntries the run reads no snapshot of the entries, which standIn takes the site ids from.
    if (!parsed.success || known.size > maxEntries) return new Map();
    this.records = parsed.data;
    const w = windowSeconds(window);
    const fits = Object.entries(this.records.groups).filter(([, r]) => boundsHold(r, w) && r.drafts.every(([slug]) => known.has(slug)));
    const ids = await this.currentIds(fits.flatMap(([, r]) => r.links.map(([, key]) => key)), writer);
    const out = new Map<string, ReusedGroupMeta>();
    for (const [hash, r] of fits) {
      if (!r.links.every(([, key, id]) => ids.get(key) === id)) continue;
      this.offered.set(hash, r);
      out.set(hash, { outcomes: r.outcomes, series: r.series, produced: r.produced, work: r.work, drafts: r.drafts.length });
    }
    return out;
  }

  /** Each distinct link once, all of a kind together: its id now (undefined: missing, changed, or not in the table). */
  private async currentIds(keys: string[], writer: SiteWriter): Promise<Map<string, number | undefined>> {
    const byKind = new Map<GroupLinkKind, string[]>();
    for (const key of new Set(keys)) {
      const kind = LinkKind.safeParse(key.slice(0, key.indexOf(':')));
      if (kind.success && this.records.links[key] !== undefined) byKind.set(kind.data, [...(byKind.get(kind.data) ?? []), key]);
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
   */
  async standIn(reused: readonly ReusedGroup[], sourceName: string, entries: { snapshot?: ReadonlyMap<string, LedgerEntry>; ledger: Ledger }, writer: SiteWriter, report: RunReport): Promise<void> {
    const records = reused.map((g) => {
      const r = this.offered.get(g.hash);
      if (!r) throw new Error(`the parser reused group ${g.hash}, which was not offered`);
      return r;
    });
    // The snapshot read during the parse, or (it could not be read) these slugs' entries now.
    const known = entries.snapshot ?? (await entries.ledger.getMany('events', records.flatMap((r) => r.drafts.map(([slug]) => slug))));
    const links = new Set<string>();
    reused.forEach((g, i) => {
      const r = records[i]!;
      for (const [, key] of r.links) links.add(key);
      for (const [slug, vi, uid, occurrence] of r.drafts) {
        const origin: Origin = { source: sourceName, line: g.lines[vi], uid: uid ?? undefined, occurrence: occurrence ?? undefined };
        if (writer.admit(slug, origin)) report.add({ kind: 'events', slug, origin, outcome: 'unchanged', siteId: known.get(slug)?.id });
      }
    });
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
    const written = writtenSlugs(run.report);
    // Nothing new and nothing gone: the records stand as they are (an unchanged re-import writes nothing).
    if (recordable.length === 0 && reused.length === Object.keys(this.records.groups).length) return;
    // A feed too big for the ledger snapshot is never offered its records (offer): none are kept.
    if (items.length > run.maxEntries) return;
    const next: Records = { v: 1, links: {}, groups: {} };
    // Drafts share their venue, organizer and term objects: each object's key is hashed once.
    const keys = new WeakMap<object, string>();
    const keep = (kind: GroupLinkKind, d: GroupLinkDraft): string => {
      let key = keys.get(d);
      if (key === undefined) keys.set(d, (key = linkKeyOf(kind, d)));
      next.links[key] ??= d;
      return key;
    };
    for (const g of reused) {
      const r = this.offered.get(g.hash)!;
      next.groups[g.hash] = r;
      for (const [, key] of r.links) next.links[key] ??= this.records.links[key];
    }
    const w = windowSeconds(window);
    for (const g of recordable) {
      const r = groupRecord(g, w, { items, written }, writer, keep);
      if (r) next.groups[g.hash] = r;
    }
    await this.state.set(this.key, next);
  }
}

/** A normalized group's record, or undefined when a link has no id yet or a term was left out. */
/**
 * The events this run wrote or found unchanged, each reported only so: a group with an event the
 * writer skipped (trashed on the site, edited there under --on-edit preserve) or failed is not
 * recorded, since normalizing it next time may write what this run did not.
 */
function writtenSlugs(report: RunReport): Set<string> {
  const ok = new Set<string>();
  const not = new Set<string>();
  for (const it of report.items) {
    if (it.kind !== 'events' || it.slug === undefined) continue;
    if (it.outcome === 'created' || it.outcome === 'updated' || it.outcome === 'unchanged') ok.add(it.slug);
    else not.add(it.slug);
  }
  for (const slug of not) ok.delete(slug);
  return ok;
}

function groupRecord(
  g: RecordableGroup,
  w: { from: number; to: number },
  run: { items: readonly Normalized<EventDraft>[]; written: ReadonlySet<string> },
  writer: SiteWriter,
  keep: (kind: GroupLinkKind, d: GroupLinkDraft) => string,
): GroupRecord | undefined {
  const drafts: GroupRecord['drafts'] = [];
  const links = new Map<string, [GroupLinkKind, string, number]>();
  const link = (kind: GroupLinkKind, d: GroupLinkDraft): boolean => {
    const id = writer.linkIdNow(kind, d);
    if (id === undefined) return false;
    const key = keep(kind, d);
    links.set(key, [kind, key, id]);
    return true;
  };
  for (let i = g.start; i < g.end; i++) {
    const it = run.items[i]!;
    if (!it.ok || !run.written.has(writer.slugOf(it.draft))) return undefined;
    const d = it.draft;
    if (keptTerms(d.categories) !== d.categories || keptTerms(d.tags) !== d.tags) return undefined;
    const linked = [
      ...d.categories.map((t) => link('categories', t)), ...d.tags.map((t) => link('tags', t)),
      ...(d.venue ? [link('venues', d.venue)] : []), ...d.organizers.map((o) => link('organizers', o)),
    ];
    if (linked.includes(false)) return undefined;
    const vi = g.lines.indexOf(d.origin.line ?? -1);
    if (vi < 0) return undefined;
    drafts.push([writer.slugOf(d), vi, d.origin.uid ?? null, d.origin.occurrence ?? null]);
  }
  return { ...w, fromHi: g.fromHi, toHi: g.toHi, outcomes: g.outcomes, series: g.series, produced: g.produced, work: g.work, drafts, links: [...links.values()] };
}
