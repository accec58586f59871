import type { Redis } from 'ioredis';
import type { EventDraft } from '../model/draft.ts';
import { slugFor } from '../model/identity.ts';
import { ledgerKey, type LedgerScope } from './ledger.ts';

/**
 * A source's events are named by its key (`<source-key>-<hash of key and identity>`), so the same
 * feed imported under a second key (a downloaded file first, then its URL; a CLI trial, then a
 * config source with its own name) would create every event a second time. Before a source's first
 * write, a sample of its drafts is looked up in the ledgers of the other sources of the same site
 * and language: that finds the feed under its earlier key without any request to the site.
 */

/** Another source of the same site and language whose ledger holds some of these drafts. */
export interface SourceOverlap {
  source: string;
  /** The site key that source's ledger is under, when it is one of the site's aliases. */
  site?: string;
  /** Sampled drafts found in that source's ledger. */
  found: number;
  sampled: number;
}

/** Drafts looked up per other source: enough to tell "the same feed" from "a few shared UIDs". */
const SAMPLE = 64;
/** Other sources compared, and SCAN replies read to find them: the lookup is bounded whatever Redis holds. */
const MAX_SOURCES = 200;
const MAX_SCANS = 200;

/** `*`, `?`, `[`, `]` and `\` in a site key or language match literally in a SCAN pattern. */
const globLiteral = (s: string): string => s.replace(/[*?[\]\\]/g, '\\$&');

/** Up to `n` drafts spread evenly over the list (the feed's first events may all be one series). */
function spread<T>(items: readonly T[], n: number): T[] {
  if (items.length <= n) return [...items];
  const step = items.length / n;
  return Array.from({ length: n }, (_, i) => items[Math.floor(i * step)]!);
}

/** The other source keys with an events ledger on this site and language. */
export async function otherSources(redis: Redis, prefix: string, scope: LedgerScope): Promise<string[]> {
  const head = ledgerKey({ ...scope, source: '' }, 'events', prefix).slice(0, -':events'.length);
  const pattern = `${globLiteral(head)}*:events`;
  const found = new Set<string>();
  let cursor = '0';
  for (let scans = 0; scans < MAX_SCANS && found.size < MAX_SOURCES; scans++) {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    for (const k of keys) {
      const source = k.slice(head.length, -':events'.length);
      if (source !== scope.source && ledgerKey({ ...scope, source }, 'events', prefix) === k) found.add(source);
    }
    cursor = next;
    if (cursor === '0') break;
  }
  return [...found].slice(0, MAX_SOURCES);
}

/**
 * The other source holding the most of a sample of these drafts, if any holds one. `aliases`: the
 * site's other keys (src/config/sites.ts), searched too: the same site named by its URL on the
 * command line and by a config name keeps two sets of ledgers, and a feed tried under one is still
 * the same events under the other. The same source key under an alias is not another source: its
 * slugs are this run's, so its events are updated in place.
 */
export async function findSourceOverlap(redis: Redis, prefix: string, scope: LedgerScope, drafts: readonly EventDraft[], aliases: readonly string[] = []): Promise<SourceOverlap | undefined> {
  if (drafts.length === 0) return undefined;
  const sample = spread(drafts, SAMPLE);
  let best: SourceOverlap | undefined;
  for (const site of [scope.site, ...aliases]) {
    const at = { ...scope, site };
    for (const source of await otherSources(redis, prefix, at)) {
      const slugs = sample.map((d) => slugFor(source, d.identity));
      const replies = await redis.hmget(ledgerKey({ ...at, source }, 'events', prefix), ...slugs);
      const found = replies.filter((r) => r !== null).length;
      if (found > 0 && (!best || found > best.found)) best = { source, found, sampled: sample.length, ...(site === scope.site ? {} : { site }) };
    }
  }
  return best;
}

/** "The same feed": at least half the sample is already another source's. */
export function isSameFeed(o: SourceOverlap): boolean {
  return o.found * 2 >= o.sampled;
}
