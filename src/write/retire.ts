import type { CalendarClient } from '../api/index.ts';
import { isGone } from '../api/index.ts';
import type { Language } from '../model/languages.ts';
import { mapConcurrent } from '../util/pool.ts';
import type { Ledger, LedgerEntry } from './ledger.ts';
import type { LedgerListing } from './ledger-snapshot.ts';
import { recordToBody } from './record-body.ts';
import type { RunReport } from '../report/report.ts';
import { CalsyncError } from '../errors/calsync-error.ts';
import { windowCovers, type RunWindow } from '../model/run-window.ts';

export type RetirePolicy = 'keep' | 'draft' | 'trash' | 'delete';

export interface RetireOptions {
  client: CalendarClient;
  ledger: Ledger;
  /**
   * The source's event entries as the ledger holds them now, when the caller has them (SiteWriter:
   * the snapshot its run primed from, with the run's own writes over it); else read from `ledger`.
   */
  entries?: LedgerListing;
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

/** A ledger entry retirement may act on: its slug and the site id the ledger holds for it. */
type Target = [slug: string, id: number];

/**
 * Applies the retire policy to ledger entries this source wrote that it no longer lists (inside
 * the window) and to cancelled occurrences. Only ledger entries are touched, so records the site
 * made itself are never retired. `delete` trashes too: the v1 API has no permanent delete for events.
 */
export async function retireVanished(o: RetireOptions): Promise<void> {
  const { ledger, report, policy } = o;
  const maxShare = o.maxShare ?? 0.5;
  const found = await candidates(o);
  let { vanished, cancelled } = found;
  // Entries the caller held rather than read just now: only those the ledger still holds are
  // touched, by the id it holds now (a run of the same source outside the run lock may have
  // retired or rewritten some meanwhile). Under the lock this changes nothing.
  if (o.entries && policy !== 'keep' && vanished.length + cancelled.length > 0) ({ vanished, cancelled } = await stillHeld(ledger, vanished, cancelled));
  const summary = { policy, candidates: vanished.length, retired: 0, failed: 0, refused: false as boolean, reason: undefined as string | undefined };
  report.retire = summary;
  if (policy === 'keep') {
    for (const [slug, id] of cancelled) {
      report.warn(`${slug} (site id ${id}) is cancelled in the source but left on the site (--retire keep)`);
    }
    return;
  }
  let targets: Target[] = cancelled;
  if (vanished.length > 0 && !o.force && vanished.length > maxShare * found.total()) {
    const err = new MassRetireRefusedError(vanished.length, found.total(), maxShare);
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

/**
 * Cancelled entries, and the entries the window covers that the source no longer lists, with the
 * number of covered entries (not cancelled) the guard compares them with. The window is applied to
 * the entries the source still lists only when that total is asked for, that is when something
 * vanished: an unchanged re-import tests none.
 */
async function candidates(o: RetireOptions): Promise<{ vanished: Target[]; cancelled: Target[]; total: () => number }> {
  const vanished: Target[] = [];
  const cancelled: Target[] = [];
  // The entries the source still lists are read only if `total` is asked for: an unchanged re-import reads none.
  const listed: Array<() => LedgerEntry | undefined> = [];
  const covers = (e: LedgerEntry) => !o.window || windowCovers(o.window, e);
  const sort = (slug: string, entry: () => LedgerEntry | undefined): void => {
    if (o.seen.has(slug) && !o.cancelled.has(slug)) return void listed.push(entry);
    const e = entry();
    if (!e) return;
    if (o.cancelled.has(slug)) cancelled.push([slug, e.id]);
    else if (covers(e)) vanished.push([slug, e.id]);
  };
  const view = o.entries;
  if (view) for (const slug of view.slugs()) sort(slug, () => view.get(slug));
  else for await (const [slug, e] of o.ledger.entries('events')) sort(slug, () => e);
  let covered: number | undefined;
  const total = () => (covered ??= vanished.length + listed.filter((entry) => {
    const e = entry();
    return e !== undefined && covers(e);
  }).length);
  return { vanished, cancelled, total };
}

/** The targets the ledger still holds, each with the site id it holds now (one read for all of them). */
async function stillHeld(ledger: Ledger, vanished: Target[], cancelled: Target[]): Promise<{ vanished: Target[]; cancelled: Target[] }> {
  const now = await ledger.getMany('events', [...vanished, ...cancelled].map(([slug]) => slug));
  const held = (list: Target[]): Target[] => list.flatMap(([slug]) => {
    const e = now.get(slug);
    return e ? [[slug, e.id] as Target] : [];
  });
  return { vanished: held(vanished), cancelled: held(cancelled) };
}
