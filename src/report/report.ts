import { z } from 'zod';
import type { Origin } from '../model/draft.ts';
import { terminalSafe } from '../util/terminal.ts';

export const OUTCOMES = ['created', 'updated', 'unchanged', 'skipped', 'failed', 'retired'] as const;
export type Outcome = (typeof OUTCOMES)[number];
export const ITEM_KINDS = ['events', 'venues', 'organizers', 'categories', 'tags'] as const;
/** One item of each kind, as the text report names it ("FAILED category …", not "categorie"). */
const ITEM_NOUN: Readonly<Record<(typeof ITEM_KINDS)[number], string>> = { events: 'event', venues: 'venue', organizers: 'organizer', categories: 'category', tags: 'tag' };
export type ItemKind = (typeof ITEM_KINDS)[number];

export const Counts = z.object({
  read: z.number(),
  created: z.number(),
  updated: z.number(),
  unchanged: z.number(),
  skipped: z.number(),
  failed: z.number(),
  retired: z.number(),
});
export type Counts = z.infer<typeof Counts>;

export const ItemReport = z.object({
  kind: z.enum(ITEM_KINDS),
  slug: z.string().optional(),
  outcome: z.enum(OUTCOMES),
  reason: z.string().optional(),
  origin: z.object({ source: z.string(), line: z.number().optional(), uid: z.string().optional(), occurrence: z.string().optional(), ref: z.string().optional() }).optional(),
  siteId: z.number().optional(),
  /**
   * Its outcome is what an earlier delivery of the run's job did (a worker killed under it, a failed
   * attempt), as the ledger recorded it (src/write/job-mark.ts): not a write of this one.
   */
  earlier: z.literal(true).optional(),
});
export type ItemReport = z.infer<typeof ItemReport>;

export const RetireSummary = z.object({
  policy: z.string(),
  candidates: z.number(),
  retired: z.number(),
  failed: z.number(),
  refused: z.boolean(),
  reason: z.string().optional(),
});

export const ReportJson = z.object({
  run: z.object({ id: z.string(), kind: z.string(), source: z.string(), site: z.string(), language: z.string(), dryRun: z.boolean(), startedAt: z.string(), finishedAt: z.string().optional(), durationMs: z.number().optional() }),
  counts: z.record(z.enum(ITEM_KINDS), Counts),
  items: z.array(ItemReport),
  retire: RetireSummary.optional(),
  warnings: z.array(z.string()),
  notModified: z.boolean().optional(),
  /** Venues/organizers that were already on the site (not created by calsync) and were only linked. */
  linked: z.array(z.object({ kind: z.enum(['venues', 'organizers']), id: z.number(), name: z.string() })).optional(),
  /** Why the run skipped its work (`notModified`): HTTP 304, a local file or content unchanged since the last clean run. */
  unchangedReason: z.string().optional(),
  /** The zone floating times were read in, and why that one (an option, the site's own setting). */
  defaultTimezone: z.object({ zone: z.string(), from: z.string() }).optional(),
  /** Set when the run failed as a whole (exit 1): what happened, as the one-line message says. */
  failure: z.object({ code: z.string(), message: z.string() }).optional(),
  /** Requests this run sent to the site(s): attempts, retries among them, 429 answers. */
  requests: z.object({ total: z.number(), retries: z.number(), throttled: z.number() }).optional(),
});
export type ReportJson = z.infer<typeof ReportJson>;

/** Which of two outcomes a record reported by two CSV chunks keeps (RunReport.mergeChunk). */
const OUTCOME_RANK: Readonly<Record<ItemReport['outcome'], number>> = { failed: 5, created: 4, updated: 3, unchanged: 2, skipped: 1, retired: 0 };

const emptyCounts = (): Counts => ({ read: 0, created: 0, updated: 0, unchanged: 0, skipped: 0, failed: 0, retired: 0 });

/**
 * One run's account of every item: each item read ends in exactly one outcome with a reason
 * (DESIGN rule 4). `read` counts items read from the source, so for every kind
 * read = created + updated + unchanged + skipped + failed; `retired` counts site records retired
 * (vanished or cancelled in the source) and is not part of `read`.
 */
export class RunReport {
  readonly counts: Record<ItemKind, Counts> = {
    events: emptyCounts(),
    venues: emptyCounts(),
    organizers: emptyCounts(),
    categories: emptyCounts(),
    tags: emptyCounts(),
  };
  readonly items: ItemReport[] = [];
  readonly warnings: string[] = [];
  readonly linked: NonNullable<ReportJson['linked']> = [];
  retire?: z.infer<typeof RetireSummary>;
  notModified?: boolean;
  unchangedReason?: string;
  defaultTimezone?: { zone: string; from: string };
  failure?: { code: string; message: string };
  requests?: { total: number; retries: number; throttled: number };
  readonly run: ReportJson['run'];

  constructor(run: Omit<ReportJson['run'], 'startedAt'> & { startedAt?: string }) {
    this.run = { ...run, startedAt: run.startedAt ?? new Date().toISOString() };
  }

  /**
   * Items and linked records reported while held (hold()): kept aside, in order, until release()
   * reports them or discard() drops them. An ICS import plans drafts before it knows the feed is
   * accepted; a refused feed's report must not hold them.
   */
  #held?: Array<() => void>;

  hold(): void {
    this.#held ??= [];
  }

  release(): void {
    const held = this.#held ?? [];
    this.#held = undefined;
    for (const report of held) report();
  }

  /** Drops what was held; whatever the refused run's planning still reports is dropped too. */
  discard(): void {
    this.#held = [];
  }

  /** True when `report` was kept aside for release(): the caller reports nothing now. */
  #deferred(report: () => void): boolean {
    this.#held?.push(report);
    return this.#held !== undefined;
  }

  add(item: ItemReport): void {
    if (this.#deferred(() => this.add(item))) return;
    const c = this.counts[item.kind];
    c[item.outcome]++;
    if (item.outcome !== 'retired') c.read++;
    this.items.push(item);
  }

  /**
   * Takes back what this report said of a record earlier in the run (a venue taken as unchanged
   * from the ledger, then created again because the site no longer had it: src/write/linked.ts
   * goneForGood), so that the record is read once, as what happened to it in the end.
   */
  withdraw(kind: ItemReport['kind'], slug: string): void {
    if (this.#deferred(() => this.withdraw(kind, slug))) return;
    const i = this.items.findIndex((it) => it.kind === kind && it.slug === slug);
    if (i < 0) return;
    const [gone] = this.items.splice(i, 1);
    const c = this.counts[kind];
    c[gone!.outcome]--;
    if (gone!.outcome !== 'retired') c.read--;
  }

  /** A warning, once: a run folded from many jobs (CSV chunks, sync pages) has each say it in its own report. */
  warn(message: string): void {
    if (this.#warned.has(message)) return;
    this.#warned.add(message);
    this.warnings.push(message);
  }

  readonly #warned = new Set<string>();

  /** A warning about the items being planned (a term limit): held and dropped with them (hold(), discard()). */
  warnWithItems(message: string): void {
    if (this.#deferred(() => this.warn(message))) return;
    this.warn(message);
  }

  /** An existing venue/organizer linked without writing its fields (listed once per record). */
  linkExisting(rec: NonNullable<ReportJson['linked']>[number]): void {
    if (this.#deferred(() => this.linkExisting(rec))) return;
    const key = `${rec.kind}:${rec.id}`;
    if (this.#linkedKeys.has(key)) return;
    this.#linkedKeys.add(key);
    this.linked.push(rec);
  }

  /** `kind:id` of every record in `linked`: a sync linking thousands stays linear. */
  readonly #linkedKeys = new Set<string>();

  /** Folds a child's report (a CSV chunk, a sync page, a sync language) into this one. */
  merge(other: ReportJson): void {
    if (other.retire) this.retire = this.retire ? addRetire(this.retire, other.retire) : { ...other.retire };
    for (const kind of ITEM_KINDS) {
      const from = other.counts[kind];
      if (!from) continue;
      for (const k of Object.keys(from) as (keyof Counts)[]) this.counts[kind][k] += from[k];
    }
    // One by one, not push(...items): a spread passes each item as an argument, and a sync
    // language's report can hold hundreds of thousands (test/regressions/report-fold-stack.test.ts).
    for (const item of other.items) this.items.push(item);
    for (const w of other.warnings) this.warn(w);
    for (const l of other.linked ?? []) this.linkExisting(l);
    if (other.requests) this.countRequests({ requests: other.requests.total, retries: other.requests.retries, throttled: other.requests.throttled });
  }

  /** `kind:siteId` (else `kind:slug`) → index in `items` of a linked record a CSV chunk reported (mergeChunk). */
  readonly #linkedAt = new Map<string, number>();

  /**
   * Folds a CSV chunk's report. A venue, organizer or term that several chunks resolve is one
   * record, so it is one item, with the strongest outcome any chunk gave it (failed, created,
   * updated, then unchanged, skipped), not one per chunk (600 rows in two chunks naming one
   * category read "categories read 2"). Items of `rowKind`, the file's own rows, are never merged.
   */
  mergeChunk(other: ReportJson, rowKind: ItemKind): void {
    const start = this.items.length;
    this.merge(other);
    const kept: ItemReport[] = [];
    const at = (i: number): ItemReport => (i < start ? this.items[i]! : kept[i - start]!);
    for (let i = start; i < this.items.length; i++) {
      const item = this.items[i]!;
      const id = item.siteId ?? item.slug;
      const key = item.kind === rowKind || id === undefined || id === '' ? undefined : `${item.kind}:${id}`;
      const seen = key === undefined ? undefined : this.#linkedAt.get(key);
      if (seen === undefined) {
        if (key !== undefined) this.#linkedAt.set(key, start + kept.length);
        kept.push(item);
        continue;
      }
      const prev = at(seen);
      const loser = OUTCOME_RANK[item.outcome] > OUTCOME_RANK[prev.outcome] ? prev : item;
      if (loser === prev) {
        if (seen < start) this.items[seen] = item;
        else kept[seen - start] = item;
      }
      this.counts[item.kind][loser.outcome]--;
      this.counts[item.kind].read--;
    }
    this.items.length = start;
    for (const item of kept) this.items.push(item);
  }

  /**
   * The one fold of several runs' reports into one (the languages of a sync, the chunks of a CSV
   * import): counts, items, warnings, linked records, requests and retirement all add up.
   */
  static fold(run: ConstructorParameters<typeof RunReport>[0], reports: ReportJson[]): RunReport {
    const total = new RunReport(run);
    for (const r of reports) total.merge(r);
    return total;
  }

  /** Adds a client's request counters (several clients or chunks fold into one total). */
  countRequests(s: { requests: number; retries: number; throttled: number }): void {
    const r = (this.requests ??= { total: 0, retries: 0, throttled: 0 });
    r.total += s.requests;
    r.retries += s.retries;
    r.throttled += s.throttled;
  }

  exitCode(): 0 | 2 {
    return reportExitCode(this.toJSON());
  }

  finish(): ReportJson {
    const finishedAt = new Date();
    this.run.finishedAt = finishedAt.toISOString();
    this.run.durationMs = finishedAt.getTime() - Date.parse(this.run.startedAt);
    return this.toJSON();
  }

  toJSON(): ReportJson {
    return {
      run: this.run,
      counts: this.counts,
      items: this.items,
      ...(this.retire ? { retire: this.retire } : {}),
      warnings: this.warnings,
      ...(this.linked.length ? { linked: this.linked } : {}),
      ...(this.notModified !== undefined ? { notModified: this.notModified } : {}),
      ...(this.unchangedReason ? { unchangedReason: this.unchangedReason } : {}),
      ...(this.defaultTimezone ? { defaultTimezone: this.defaultTimezone } : {}),
      ...(this.failure ? { failure: this.failure } : {}),
      ...(this.requests ? { requests: this.requests } : {}),
    };
  }
}

type RetireSummary = z.infer<typeof RetireSummary>;

/** Two retirements as one: counts add up; one refusal refuses the whole (the first reason given is kept). */
function addRetire(a: RetireSummary, b: RetireSummary): RetireSummary {
  const reason = a.reason ?? b.reason;
  return { policy: a.policy, candidates: a.candidates + b.candidates, retired: a.retired + b.retired, failed: a.failed + b.failed, refused: a.refused || b.refused, ...(reason !== undefined ? { reason } : {}) };
}

/**
 * The exit code of a finished run: 0 nothing failed, 2 some item failed, a retirement failed, or
 * the mass-deletion guard refused one. (1, the run failed as a whole, is a thrown error.)
 */
export function reportExitCode(r: Pick<ReportJson, 'counts' | 'retire'>): 0 | 2 {
  const failed = Object.values(r.counts).some((c) => c.failed > 0) || Boolean(r.retire?.refused) || (r.retire?.failed ?? 0) > 0;
  return failed ? 2 : 0;
}

export function originRef(origin: Origin | undefined): string {
  if (!origin) return '';
  if (origin.line !== undefined) return `${origin.source}:${origin.line}`;
  if (origin.uid) return `${origin.source} UID ${origin.uid}${origin.occurrence ? ` @ ${origin.occurrence}` : ''}`;
  return origin.ref ? `${origin.source} ${origin.ref}` : origin.source;
}

/** The human summary printed by the CLI. */
export function formatReport(r: ReportJson, opts: { maxItems?: number } = {}): string {
  const lines: string[] = [];
  const { run } = r;
  lines.push(`${run.kind} ${run.source} → ${run.site} [${run.language}]${run.dryRun ? ' (dry run: nothing written)' : ''}`);
  if (r.failure) lines.push(`  FAILED: ${r.failure.message}`);
  if (r.notModified) lines.push(`  ${r.unchangedReason ?? 'feed not modified since the last run'}: nothing to do`);
  if (r.defaultTimezone) lines.push(`  floating times read in ${r.defaultTimezone.zone} (${r.defaultTimezone.from})`);
  for (const kind of ITEM_KINDS) {
    const c = r.counts[kind];
    if (!c || (c.read === 0 && c.retired === 0)) continue;
    lines.push(
      `  ${kind.padEnd(10)} read ${c.read}: ${c.created} created, ${c.updated} updated, ${c.unchanged} unchanged, ${c.skipped} skipped, ${c.failed} failed${c.retired ? `; ${c.retired} retired` : ''}`,
    );
  }
  if (r.requests) lines.push(`  requests  ${r.requests.total} sent, ${r.requests.retries} retried, ${r.requests.throttled} throttled (429)`);
  if (r.retire) {
    const t = r.retire;
    lines.push(`  retire (${t.policy}): ${t.candidates} vanished, ${t.retired} retired${t.refused ? ` — REFUSED: ${t.reason}` : ''}`);
  }
  const problems = r.items.filter((i) => i.outcome === 'failed' || i.outcome === 'skipped');
  const max = opts.maxItems ?? 50;
  for (const i of problems.slice(0, max)) {
    lines.push(`  ${i.outcome.toUpperCase()} ${ITEM_NOUN[i.kind]} ${originRef(i.origin as Origin | undefined) || i.slug || ''}: ${i.reason ?? ''}`);
  }
  if (problems.length > max) lines.push(`  … and ${problems.length - max} more (use --json for all)`);
  for (const l of r.linked ?? []) lines.push(`  linked existing ${l.kind.slice(0, -1)} "${l.name}" (id ${l.id}): its fields were left as they are`);
  for (const w of r.warnings) lines.push(`  warning: ${w}`);
  if (run.durationMs !== undefined) lines.push(`  took ${(run.durationMs / 1000).toFixed(1)} s`);
  // Reasons, warnings and names carry feed and CSV text: no control character reaches the terminal.
  return lines.map((l) => terminalSafe(l)).join('\n');
}
