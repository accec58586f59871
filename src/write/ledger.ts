import type { Redis } from 'ioredis';
import { z } from 'zod';
import { compiled } from '../util/compiled.ts';

/**
 * What calsync last wrote for one slug: the fingerprint of the full write body, the site id, the
 * site's `modified_utc` after our write (to spot edits made on the site) and the occurrence start
 * and end (so retirement only touches entries inside the window a run covers).
 */
export const LedgerEntry = z.object({
  fp: z.string(),
  id: z.number(),
  modified: z.string().optional(),
  start: z.string().optional(),
  /**
   * The occurrence's end (ISO) and its start and end as the site's wall clock in the event's zone
   * (`YYYY-MM-DD HH:MM:SS`): which window covers the entry depends on them (src/model/run-window.ts).
   */
  end: z.string().optional(),
  localStart: z.string().optional(),
  localEnd: z.string().optional(),
  /** The record's slug on the site, when the site chose it (venues/organizers cannot be given one). */
  slug: z.string().optional(),
  /** Source record id (sync), so hidden source events can be fetched by id. */
  src: z.string().optional(),
  /**
   * Sync: the source's `modified_utc` when we last read it (only once it is a few minutes old,
   * since it has one-second precision) and a fingerprint of the linked ids written, so a later
   * sync can skip rendering an event neither has changed for.
   */
  srcMod: z.string().optional(),
  links: z.string().optional(),
  /**
   * Import: the draft's eventShape (its body's fingerprint with the links left out) and the linkKey of
   * the links written, so a re-import sees an unchanged event without building its body (src/write/body.ts).
   */
  shape: z.string().optional(),
  lids: z.string().optional(),
  /** A venue/organizer calsync found on the site (not created by it): linked, its fields not written. */
  adopted: z.boolean().optional(),
  /**
   * The job whose write stored the entry (its mark, src/write/job-mark.ts; none for an inline CLI run),
   * and `new` when that job created the record: a delivery of the same job taking over from a killed
   * worker, or retried, reports what the earlier delivery did instead of "unchanged".
   */
  run: z.string().optional(),
  new: z.literal(true).optional(),
  /**
   * A venue/organizer found in the site's trash: not linked nor created again until it is restored
   * there (src/write/linked-trash.ts).
   */
  trashed: z.boolean().optional(),
  at: z.string(),
});
export type LedgerEntry = z.infer<typeof LedgerEntry>;

/**
 * An entry retired (src/write/retire.ts), kept beside the kind's entries once the entry itself is
 * gone, for a while (retire.ts prunes it): an event that comes back to the source is restored under
 * its old site id instead of created again (SiteWriter), and a delivery of the same queued job
 * (`run`, its mark) taking over from a killed worker reports the retirement, which it no longer
 * finds in the entries.
 */
export const Retirement = z.object({ run: z.string().optional(), id: z.number(), reason: z.string(), at: z.string() });
export type Retirement = z.infer<typeof Retirement>;

/**
 * `categories`/`tags` hold sync's source→target term map in its terms ledger (TermResolver `memo`), and in
 * a run's own ledger the terms its queued jobs created, by site id (TermResolver `job`).
 */
export type LedgerKind = 'events' | 'venues' | 'organizers' | 'categories' | 'tags';

/** What claimName found: the spelling that holds for the key, and whether it was recorded before the claim. */
export interface NameClaim {
  name: string;
  earlier: boolean;
}

/** Ledger per site + language + source (DESIGN "Identity and change detection"). */
export interface Ledger {
  getMany(kind: LedgerKind, slugs: string[]): Promise<Map<string, LedgerEntry>>;
  set(kind: LedgerKind, slug: string, entry: LedgerEntry): Promise<void>;
  /** Removes an entry; `retired` (a retirement) is recorded in the same step (retirements). */
  remove(kind: LedgerKind, slug: string, retired?: Retirement): Promise<void>;
  /** The retirements remove() recorded, by slug: all, or those of these slugs. */
  retirements(kind: LedgerKind, slugs?: string[]): Promise<Map<string, Retirement>>;
  /** Forgets the recorded retirements of these slugs. */
  forgetRetirements(kind: LedgerKind, slugs: string[]): Promise<void>;
  /**
   * Drops every entry and retirement of these kinds (the claimed name spellings stay): what a site
   * that lost the ledger's records leaves of it (src/write/ledger-on-site.ts).
   */
  forget(kinds: LedgerKind[]): Promise<void>;
  /** Up to `n` entries of a kind, chosen at random (HRANDFIELD): a sample, without reading the rest. */
  sample(kind: LedgerKind, n: number): Promise<Array<[string, LedgerEntry]>>;
  /** Every entry of a kind, streamed (HSCAN) so a 100k-event ledger is not one reply. */
  entries(kind: LedgerKind): AsyncIterable<[string, LedgerEntry]>;
  /**
   * The same, as stored: a page (one HSCAN reply) at a time, slug and stored value alternating,
   * where the ledger reads them that way. Read by schema only when used (ledger-snapshot.ts).
   */
  storedPages?(kind: LedgerKind): AsyncIterable<string[]>;
  size(kind: LedgerKind): Promise<number>;
  /**
   * The spelling a venue/organizer name is written with: the first one recorded for its key wins
   * (set-if-absent), so chunks and workers that meet "Carnival UK" and "carnival UK" all write the
   * same one and a re-import finds nothing to change. `earlier`: the spelling was recorded before
   * this call (by an earlier run, or another job), not by it.
   */
  claimName(kind: 'venues' | 'organizers', key: string, name: string): Promise<NameClaim>;
  /** The spellings claimName recorded for these keys (those with one): a recorded spelling never changes. */
  recordedNames(kind: 'venues' | 'organizers', keys: string[]): Promise<Map<string, string>>;
}

export interface LedgerScope {
  site: string;
  language: string;
  source: string;
}

export function ledgerKey(scope: LedgerScope, kind: LedgerKind, prefix = 'calsync'): string {
  return `${prefix}:ledger:${scope.site}:${scope.language}:${scope.source}:${kind}`;
}

/** Longest an entry waits for the HSET that stores it, and the most entries one carries (RedisLedger.set). */
const FLUSH_MS = 25;
const FLUSH_AT = 256;

/** Entries waiting for one flush: `done` settles once they are stored. */
interface LedgerWindow {
  done: Promise<void>;
  close: (batch: Map<string, Map<string, string>>) => void;
  timer: NodeJS.Timeout;
}

/**
 * A stored entry, read back by schema: through its compiled copy (src/util/compiled.ts), since a
 * re-import may read every entry of its source (ledger-snapshot.ts, 17k on the bench feed).
 */
export function parseEntry(raw: string | null | undefined): LedgerEntry | undefined {
  if (!raw) return undefined;
  const r = compiled(LedgerEntry).safeParse(JSON.parse(raw));
  return r.success ? r.data : undefined;
}

/** A stored value as JSON, or undefined when it is not (the schema then rejects it). */
function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

export class RedisLedger implements Ledger {
  readonly redis: Redis;
  readonly scope: LedgerScope;
  readonly prefix: string;
  constructor(redis: Redis, scope: LedgerScope, prefix = 'calsync') {
    this.redis = redis;
    this.scope = scope;
    this.prefix = prefix;
  }
  private key(kind: LedgerKind) {
    return ledgerKey(this.scope, kind, this.prefix);
  }
  async getMany(kind: LedgerKind, slugs: string[]): Promise<Map<string, LedgerEntry>> {
    return this.readFields(this.key(kind), slugs, parseEntry);
  }

  /**
   * These fields of a hash, read by `read` (undefined: left out). All parts of 1000 fields in
   * flight at once: one round trip, not one per part (a run primes its whole feed).
   */
  private async readFields<T>(hash: string, fields: string[], read: (raw: string | null | undefined) => T | undefined): Promise<Map<string, T>> {
    const out = new Map<string, T>();
    if (fields.length === 0) return out;
    const parts: string[][] = [];
    for (let i = 0; i < fields.length; i += 1000) parts.push(fields.slice(i, i + 1000));
    const replies = await Promise.all(parts.map((part) => this.redis.hmget(hash, ...part)));
    parts.forEach((part, p) => {
      const values = replies[p]!;
      part.forEach((field, j) => {
        const v = read(values[j]);
        if (v !== undefined) out.set(field, v);
      });
    });
    return out;
  }
  private pending = new Map<string, Map<string, string>>();
  private pendingCount = 0;
  private window?: LedgerWindow;

  /**
   * Writes are grouped into one HSET per key for every FLUSH_MS milliseconds or every
   * FLUSH_AT entries, whichever comes first; each call still resolves only once its entry is
   * stored. Every flush is a socket write here and a command for Redis on the same two cores,
   * so fewer, larger ones leave more CPU for the site writes (bench/import-ics.ts). Event
   * entries are never awaited by a request slot (SiteWriter records them after the slot is
   * free); venue/organizer entries are, by the events waiting for their id, so they flush at once.
   */
  set(kind: LedgerKind, slug: string, entry: LedgerEntry): Promise<void> {
    const key = this.key(kind);
    let m = this.pending.get(key);
    if (!m) this.pending.set(key, (m = new Map()));
    m.set(slug, JSON.stringify(entry));
    this.pendingCount++;
    const w = (this.window ??= this.openWindow());
    if (kind !== 'events' || this.pendingCount >= FLUSH_AT) this.closeWindow();
    return w.done;
  }

  private openWindow(): LedgerWindow {
    let close!: (batch: Map<string, Map<string, string>>) => void;
    const batch = new Promise<Map<string, Map<string, string>>>((resolve) => (close = resolve));
    const timer = setTimeout(() => this.closeWindow(), FLUSH_MS);
    return { done: batch.then((b) => this.write(b)), close, timer };
  }

  /** Ends the open window: what is pending now is its batch; later entries open the next one. */
  private closeWindow(): void {
    const w = this.window;
    if (!w) return;
    clearTimeout(w.timer);
    const batch = this.pending;
    this.pending = new Map();
    this.pendingCount = 0;
    this.window = undefined;
    w.close(batch);
  }

  private async write(batch: Map<string, Map<string, string>>): Promise<void> {
    // A pipeline, not MULTI: each entry stands alone (a crash between two is what the site index recovers from).
    const pipeline = this.redis.pipeline();
    for (const [key, fields] of batch) pipeline.hset(key, Object.fromEntries(fields));
    throwIfAnyFailed(await pipeline.exec());
  }
  async remove(kind: LedgerKind, slug: string, retired?: Retirement): Promise<void> {
    if (!retired) return void (await this.redis.hdel(this.key(kind), slug));
    throwIfAnyFailed(await this.redis.multi().hdel(this.key(kind), slug).hset(this.retiredKey(kind), slug, JSON.stringify(retired)).exec());
  }
  /** What remove() records of a retirement, beside the kind's entries. */
  private retiredKey(kind: LedgerKind): string {
    return `${this.key(kind)}:retired`;
  }
  async retirements(kind: LedgerKind, slugs?: string[]): Promise<Map<string, Retirement>> {
    const read = (raw: string | null | undefined) => {
      const r = raw ? Retirement.safeParse(parseJson(raw)) : undefined;
      return r?.success ? r.data : undefined;
    };
    if (slugs) return this.readFields(this.retiredKey(kind), slugs, read);
    const out = new Map<string, Retirement>();
    for (const [slug, raw] of Object.entries(await this.redis.hgetall(this.retiredKey(kind)))) {
      const r = read(raw);
      if (r) out.set(slug, r);
    }
    return out;
  }
  async forgetRetirements(kind: LedgerKind, slugs: string[]): Promise<void> {
    if (slugs.length) await this.redis.hdel(this.retiredKey(kind), ...slugs);
  }
  async forget(kinds: LedgerKind[]): Promise<void> {
    if (kinds.length) await this.redis.del(...kinds.flatMap((k) => [this.key(k), this.retiredKey(k)]));
  }
  async sample(kind: LedgerKind, n: number): Promise<Array<[string, LedgerEntry]>> {
    const flat = (await this.redis.hrandfield(this.key(kind), n, 'WITHVALUES')) as string[];
    const out: Array<[string, LedgerEntry]> = [];
    for (let i = 0; i < flat.length; i += 2) {
      const e = parseEntry(flat[i + 1]);
      if (e) out.push([flat[i]!, e]);
    }
    return out;
  }
  async *entries(kind: LedgerKind): AsyncIterable<[string, LedgerEntry]> {
    for await (const flat of this.storedPages(kind)) {
      for (let i = 0; i < flat.length; i += 2) {
        const e = parseEntry(flat[i + 1]);
        if (e) yield [flat[i]!, e];
      }
    }
  }
  async *storedPages(kind: LedgerKind): AsyncIterable<string[]> {
    let cursor = '0';
    do {
      const [next, flat] = await this.redis.hscan(this.key(kind), cursor, 'COUNT', 1000);
      cursor = next;
      yield flat;
    } while (cursor !== '0');
  }
  async size(kind: LedgerKind): Promise<number> {
    return this.redis.hlen(this.key(kind));
  }
  async recordedNames(kind: 'venues' | 'organizers', keys: string[]): Promise<Map<string, string>> {
    return this.readFields(this.namesKey(kind), keys, (v) => (typeof v === 'string' ? v : undefined));
  }
  /** The spellings claimName records, beside the kind's entries. */
  private namesKey(kind: 'venues' | 'organizers'): string {
    return `${this.key(kind)}:names`;
  }
  async claimName(kind: 'venues' | 'organizers', key: string, name: string): Promise<NameClaim> {
    const hash = this.namesKey(kind);
    const res = await this.redis.multi().hsetnx(hash, key, name).hget(hash, key).exec();
    const stored = res?.[1]?.[1];
    // HSETNX answers 0 when the field was there already.
    return { name: typeof stored === 'string' ? stored : name, earlier: res?.[0]?.[1] === 0 };
  }
}

/** A pipeline's or MULTI's first failed command, thrown (ioredis resolves exec() with each command's error). */
function throwIfAnyFailed(results: [Error | null, unknown][] | null): void {
  const failed = results?.find(([err]) => err);
  if (failed) throw failed[0];
}

/** For inline runs without Redis: the run still creates no duplicates (upsert by slug), it only rewrites. */
export class MemoryLedger implements Ledger {
  private readonly maps: Record<LedgerKind, Map<string, LedgerEntry>> = { events: new Map(), venues: new Map(), organizers: new Map(), categories: new Map(), tags: new Map() };
  async getMany(kind: LedgerKind, slugs: string[]) {
    const out = new Map<string, LedgerEntry>();
    for (const s of slugs) {
      const e = this.maps[kind].get(s);
      if (e) out.set(s, e);
    }
    return out;
  }
  async set(kind: LedgerKind, slug: string, entry: LedgerEntry) {
    this.maps[kind].set(slug, entry);
  }
  private readonly retired: Record<LedgerKind, Map<string, Retirement>> = { events: new Map(), venues: new Map(), organizers: new Map(), categories: new Map(), tags: new Map() };
  async remove(kind: LedgerKind, slug: string, retired?: Retirement) {
    this.maps[kind].delete(slug);
    if (retired) this.retired[kind].set(slug, retired);
  }
  async retirements(kind: LedgerKind, slugs?: string[]) {
    const all = this.retired[kind];
    return slugs ? new Map(slugs.flatMap((s) => (all.has(s) ? [[s, all.get(s)!] as const] : []))) : new Map(all);
  }
  async forgetRetirements(kind: LedgerKind, slugs: string[]) {
    for (const slug of slugs) this.retired[kind].delete(slug);
  }
  async sample(kind: LedgerKind, n: number): Promise<Array<[string, LedgerEntry]>> {
    return [...this.maps[kind].entries()].slice(0, n);
  }
  async forget(kinds: LedgerKind[]) {
    for (const kind of kinds) {
      this.maps[kind].clear();
      this.retired[kind].clear();
    }
  }
  async *entries(kind: LedgerKind): AsyncIterable<[string, LedgerEntry]> {
    yield* [...this.maps[kind].entries()];
  }
  async size(kind: LedgerKind) {
    return this.maps[kind].size;
  }
  private readonly names = new Map<string, string>();
  async recordedNames(kind: 'venues' | 'organizers', keys: string[]) {
    const out = new Map<string, string>();
    for (const key of keys) {
      const name = this.names.get(`${kind}\u0000${key}`);
      if (name !== undefined) out.set(key, name);
    }
    return out;
  }
  async claimName(kind: 'venues' | 'organizers', key: string, name: string): Promise<NameClaim> {
    const k = `${kind}\u0000${key}`;
    const earlier = this.names.has(k);
    if (!earlier) this.names.set(k, name);
    return { name: this.names.get(k)!, earlier };
  }
}
