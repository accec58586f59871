import type { Redis } from 'ioredis';
import { legacySourceKeyFrom, shortHash, sourceKeyFrom } from '../model/identity.ts';
import { ledgerKey, type LedgerKind, type LedgerScope } from '../write/ledger.ts';
import { isSameFeed } from '../write/source-overlap.ts';
import { RunFailedError, type RunContext } from './context.ts';

/**
 * The default source key of a long location (src/model/identity.ts) is no longer the one earlier
 * versions derived: those cut it at 40 characters, so two long locations with the same start shared
 * a key (one ledger, one slug space), and they now keep a hash of the whole location. A user who
 * upgrades and reruns the same feed must stay on the old key, or every event would be created a
 * second time under the new one. So the key a run uses is settled when it starts:
 *
 * - the new key, when it has state of its own (a ledger, fetch state, or its owner record), or when
 *   the old key has none;
 * - the old key, when its owner record names this location (a run of this version decided so);
 * - the new key, when the old key's owner record names another location;
 * - otherwise (state under the old key written by an earlier version, which recorded no location)
 *   the new key for now, and the run checks, after reading its feed and before any write, whether
 *   most of a sample of its items are in the old key's ledger: then that state is this location's,
 *   the old key is recorded as its own and the run starts over under it (SourceKeyMovedError), as
 *   it does when the run has no item to compare (what earlier versions did); else the new key is
 *   recorded as its own.
 *
 * Without Redis the only state is the site, whose slugs carry the key earlier versions gave: the
 * old key is kept (a memory ledger retires nothing, so a shared key there costs no event).
 * `--source` and config sources (named) are never touched.
 */

/** What settling reads and changes: a run's location, key and scope. */
export interface KeyedRun {
  location: string;
  sourceKey: string;
  site: { key: string };
  lang: string;
  /** The key was derived from the location (no `--source`, no config name): it may be settled. */
  keyFromLocation?: boolean;
  /** Set by settling: the old key whose state must be checked against the feed before any write. */
  legacyKey?: string;
}

/** The run found its feed under the old key: rerun under it (never leaves a run; the message is for safety). */
export class SourceKeyMovedError extends RunFailedError {
  readonly legacyKey: string;
  constructor(location: string, legacyKey: string) {
    super('source-overlap', `${location} was imported under source "${legacyKey}" by an earlier version: rerun with --source ${legacyKey}`);
    this.name = 'SourceKeyMovedError';
    this.legacyKey = legacyKey;
  }
}

const ownerKey = (ctx: RunContext, r: KeyedRun, key: string) => `${ctx.prefix ?? 'calsync'}:state:source-owner:${r.site.key}:${r.lang}:${key}`;
const ownerOf = (location: string) => shortHash(location, 16);
const scopeOf = (r: KeyedRun, source: string): LedgerScope => ({ site: r.site.key, language: r.lang, source });

/** Keys holding state of a source key: its ledgers and an ICS run's fetch state. */
function stateKeys(ctx: RunContext, r: KeyedRun, key: string): string[] {
  const prefix = ctx.prefix ?? 'calsync';
  const kinds: LedgerKind[] = ['events', 'venues', 'organizers'];
  return [...kinds.map((k) => ledgerKey(scopeOf(r, key), k, prefix)), `${prefix}:state:fetch:${r.site.key}:${r.lang}:${key}`];
}

/** Records which location a key's state is for (a dry run too: it states a fact, it writes nothing of the source's). */
async function claim(redis: Redis, ctx: RunContext, r: KeyedRun, key: string): Promise<void> {
  await redis.set(ownerKey(ctx, r, key), ownerOf(r.location));
}

/**
 * The run's key, settled as above; `legacyKey` set when the feed must still be checked. `part`: a
 * job within a planned run (a CSV chunk, its finish), which settles as its planner did and says
 * so at debug level only (the planner's line is the run's).
 */
export async function settleSourceKey<P extends KeyedRun>(r: P, ctx: RunContext, opts: { part?: boolean } = {}): Promise<P> {
  if (!r.keyFromLocation || r.legacyKey) return r;
  const key = sourceKeyFrom(r.location);
  const legacy = legacySourceKeyFrom(r.location);
  if (key === legacy) return { ...r, sourceKey: key };
  const keep = (sourceKey: string, why: string, legacyKey?: string): P => {
    // Undecided (legacyKey): checkLegacyKey says which key was kept, in the run's one line about it.
    (legacyKey || opts.part ? ctx.log?.debug.bind(ctx.log) : ctx.log?.info.bind(ctx.log))?.({ source: sourceKey, legacySource: legacy }, `source key "${sourceKey}" kept: ${why}`);
    return { ...r, sourceKey, ...(legacyKey ? { legacyKey } : {}) };
  };
  const redis = ctx.redis;
  if (!redis) return keep(legacy, 'no Redis, so the site\'s slugs (made with the key earlier versions derived) are the only state');
  const [own, old, ownState, oldState] = await Promise.all([
    redis.get(ownerKey(ctx, r, key)),
    redis.get(ownerKey(ctx, r, legacy)),
    redis.exists(...stateKeys(ctx, r, key)),
    redis.exists(...stateKeys(ctx, r, legacy)),
  ]);
  if (own !== null || ownState > 0) return keep(key, 'it holds this location\'s state');
  if (old === ownerOf(r.location)) return keep(legacy, 'the state under this key earlier versions derived was written for this location');
  if (old !== null) return keep(key, `the key earlier versions derived ("${legacy}") belongs to another location`);
  if (oldState === 0) {
    await claim(redis, ctx, r, key);
    return keep(key, `nothing is stored under the key earlier versions derived ("${legacy}")`);
  }
  return keep(key, `state under the key earlier versions derived ("${legacy}") is checked against the feed before any write`, legacy);
}

/** Items sampled from the feed against the old key's ledger: enough to tell "the same feed". */
const SAMPLE = 64;

/**
 * Before a settled run's first write (`legacyKey` set): the slugs its items would have under the old
 * key, looked up in that key's ledger of `kind`. Most found (or no item to compare): that state is
 * this location's, recorded so, and the run starts over under the old key (SourceKeyMovedError).
 * Else the new key is recorded as this location's. Either way later runs and the other jobs of this
 * one (a queued CSV import's chunks) settle at once; one info line says which key and why.
 */
export async function checkLegacyKey(r: KeyedRun, ctx: RunContext, kind: LedgerKind, slugsUnder: (key: string) => string[]): Promise<void> {
  const legacy = r.legacyKey;
  if (!legacy || !ctx.redis) return;
  const all = slugsUnder(legacy);
  const step = Math.max(1, all.length / SAMPLE);
  const sample = Array.from({ length: Math.min(SAMPLE, all.length) }, (_, i) => all[Math.floor(i * step)]!);
  const found = sample.length ? (await ctx.redis.hmget(ledgerKey(scopeOf(r, legacy), kind, ctx.prefix ?? 'calsync'), ...sample)).filter((v) => v !== null).length : 0;
  // No item to compare (an empty feed, a first chunk of rejected rows): as earlier versions did.
  const why = sample.length === 0 ? 'no item of this location to compare with its state, so as earlier versions did'
    : isSameFeed({ source: legacy, found, sampled: sample.length }) ? `${found} of ${sample.length} sampled items of this location are in its ledger (written by an earlier version)`
    : undefined;
  if (why) {
    await claim(ctx.redis, ctx, r, legacy);
    ctx.log?.info({ source: legacy, found, sampled: sample.length }, `source key "${legacy}" kept: ${why}`);
    throw new SourceKeyMovedError(r.location, legacy);
  }
  await claim(ctx.redis, ctx, r, r.sourceKey);
  ctx.log?.info({ source: r.sourceKey, legacySource: legacy, found, sampled: sample.length }, `source key "${r.sourceKey}" kept: only ${found} of ${sample.length} sampled items of this location are in the ledger of the key earlier versions derived ("${legacy}"), which is another location's`);
}

/** A run under its settled key, started over once under the old key when its feed was found there. */
export async function withSettledKey<P extends KeyedRun, T>(p: P, ctx: RunContext, run: (p: P) => Promise<T>): Promise<T> {
  const settled = await settleSourceKey(p, ctx);
  try {
    return await run(settled);
  } catch (err) {
    if (!(err instanceof SourceKeyMovedError)) throw err;
    const { legacyKey: _checked, ...rest } = settled;
    return run({ ...rest, sourceKey: err.legacyKey, keyFromLocation: false } as P);
  }
}
