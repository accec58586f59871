import type { CalendarClient } from '../api/index.ts';
import { isGone } from '../api/index.ts';
import type { Language } from '../model/languages.ts';
import { mapConcurrent } from '../util/pool.ts';
import type { Ledger } from './ledger.ts';
import { recordToBody } from './record-body.ts';
import type { RunReport } from '../report/report.ts';
import { CalsyncError } from '../errors/calsync-error.ts';
import { windowCovers, type RunWindow } from '../model/run-window.ts';

export type RetirePolicy = 'keep' | 'draft' | 'trash' | 'delete';

export interface RetireOptions {
  client: CalendarClient;
  ledger: Ledger;
  report: RunReport;
  lang?: Language;
  policy: RetirePolicy;
  /** Slugs the source still lists this run. */
  seen: Set<string>;
  /** Slugs the source marks cancelled this run (retired without the guard: the source said so). */
  cancelled: Set<string>;
  /** Only ledger entries the run's window covers (by the rule it selected with) can have vanished. */
  window?: RunWindow;
  /** Largest share of a source's events one run may retire. @defaultValue 0.5 */
  maxShare?: number;
  force?: boolean;
  dryRun?: boolean;
  concurrency?: number;
}

/** Raised (and reported) when a run would retire more than the guard allows. */
export class MassRetireRefusedError extends CalsyncError {
  readonly code = 'mass-retire-refused';
  readonly candidates: number;
  readonly total: number;
  constructor(candidates: number, total: number, maxShare: number) {
    super(
      `refusing to retire ${candidates} of ${total} events (more than ${Math.round(maxShare * 100)}%): an emptied or broken source must not wipe a site. ` +
        'Check the source; rerun with --force-retire if this is intended.',
    );
    this.name = 'MassRetireRefusedError';
    this.candidates = candidates;
    this.total = total;
  }
}

/**
 * Applies the retire policy to ledger entries this source wrote that it no longer lists (inside
 * the window) and to cancelled occurrences. Only ledger entries are touched, so records the site
 * made itself are never retired. `delete` trashes too: the v1 API has no permanent delete for events.
 */
export async function retireVanished(o: RetireOptions): Promise<void> {
  const { ledger, report, policy } = o;
  const maxShare = o.maxShare ?? 0.5;
  let total = 0;
  const vanished: [string, number][] = [];
  const cancelled: [string, number][] = [];
  for await (const [slug, e] of ledger.entries('events')) {
    if (o.cancelled.has(slug)) {
      cancelled.push([slug, e.id]);
      continue;
    }
    if (o.window && !windowCovers(o.window, e)) continue;
    total++;
    if (!o.seen.has(slug)) vanished.push([slug, e.id]);
  }
  const summary = { policy, candidates: vanished.length, retired: 0, failed: 0, refused: false as boolean, reason: undefined as string | undefined };
  report.retire = summary;
  if (policy === 'keep') {
    for (const [slug, id] of cancelled) {
      report.warn(`${slug} (site id ${id}) is cancelled in the source but left on the site (--retire keep)`);
    }
    return;
  }
  let targets = cancelled;
  if (vanished.length > 0 && vanished.length > maxShare * total && !o.force) {
    const err = new MassRetireRefusedError(vanished.length, total, maxShare);
    summary.refused = true;
    summary.reason = err.message;
  } else {
    targets = [...cancelled, ...vanished];
  }
  await mapConcurrent(targets, o.concurrency ?? 8, async ([slug, id]) => {
    const why = o.cancelled.has(slug) ? 'cancelled in the source' : 'no longer in the source';
    if (o.dryRun) {
      report.add({ kind: 'events', slug, siteId: id, outcome: 'retired', reason: `${why}; would be ${policy === 'draft' ? 'set to draft' : 'trashed'} (dry run)` });
      summary.retired++;
      return;
    }
    try {
      if (policy === 'draft') {
        const rec = await o.client.events.get(id, { lang: o.lang });
        await o.client.events.update(id, { ...recordToBody(rec), status: 'draft' }, { lang: o.lang });
        await ledger.remove('events', slug);
      } else {
        await o.client.events.delete(id, { lang: o.lang });
        await ledger.remove('events', slug);
      }
      summary.retired++;
      report.add({ kind: 'events', slug, siteId: id, outcome: 'retired', reason: `${why}; ${policy === 'draft' ? 'set to draft' : 'moved to trash'}` });
    } catch (err) {
      if (isGone(err)) {
        await ledger.remove('events', slug);
        summary.retired++;
        report.add({ kind: 'events', slug, siteId: id, outcome: 'retired', reason: `${why}; already deleted on the site` });
      } else {
        summary.failed++;
        report.warn(`could not retire ${slug} (site id ${id}): ${(err as Error).message}`);
      }
    }
  });
}
