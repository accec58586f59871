import type { EventDraft, Normalized } from '../model/draft.ts';
import type { Ledger } from '../write/ledger.ts';
import { findSourceOverlap, isSameFeed } from '../write/source-overlap.ts';
import { RunFailedError, type RunContext } from './context.ts';

/** The import whose first run is checked: where it reads, the key its slugs take, and the user's choice. */
export interface OverlapRun {
  location: string;
  sourceKey: string;
  site: { key: string; aliases?: readonly string[] };
  lang: string;
  allowOverlap?: boolean;
}

/**
 * A source's first run whose events another source of the site already imported (the same feed
 * under another key: src/write/source-overlap.ts): refused when that is most of them, since each
 * would be created a second time; else the warning it returns (undefined: nothing shared, or not
 * a first run). `known`: how many events this source's ledger holds, when the caller has read it.
 * The drafts are picked out of `items` only on a first run: a re-import of a big feed pays nothing.
 */
export async function guardSourceOverlap(p: OverlapRun, items: readonly Normalized<EventDraft>[], ledger: Ledger, ctx: RunContext, known?: number): Promise<string | undefined> {
  if (p.allowOverlap || !ctx.redis) return undefined;
  if ((known ?? (await ledger.size('events'))) > 0) return undefined;
  const drafts = items.flatMap((it) => (it.ok ? [it.draft] : []));
  const scope = { site: p.site.key, language: p.lang, source: p.sourceKey };
  const o = await findSourceOverlap(ctx.redis, ctx.prefix ?? 'calsync', scope, drafts, p.site.aliases);
  if (!o) return undefined;
  const share = `${o.found} of ${o.sampled} sampled events`;
  // Found under the site's other key (its URL's, or a config name for the same REST root).
  const where = o.site ? ` (on this site under its other name "${o.site}")` : '';
  if (!isSameFeed(o)) return `${share} of this source are also source "${o.source}"'s${where}: those are created a second time under source "${p.sourceKey}" (--source ${o.source} would update them instead)`;
  throw new RunFailedError(
    'source-overlap',
    `${p.location} was already imported as source "${o.source}"${where} (${share} found there); importing it as source "${p.sourceKey}" would create its events a second time. ` +
      `Rerun with --source ${o.source} (a config source: name it "${o.source}") to update them, or with --allow-overlap to import a second copy.`,
  );
}
