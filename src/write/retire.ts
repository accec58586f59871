import type { CalendarClient } from '../api/index.ts';
import { isGone } from '../api/index.ts';
import type { Language } from '../model/languages.ts';
import { mapConcurrent } from '../util/pool.ts';
import type { Ledger, LedgerEntry, Retirement } from './ledger.ts';
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
  /**
   * `--on-edit preserve`: an event edited on the site since calsync last wrote it (its
   * `modified_utc` past the ledger's) is left alone and named in a warning, not retired.
   */
  preserveEdits?: boolean;
  dryRun?: boolean;
  concurrency?: number;
  /**
   * The queued job running the retirement (src/write/job-mark.ts): each retirement is recorded with
   * it, and what an earlier delivery of the job retired (a worker killed under it) is reported again.
   */
  mark?: string;
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

/** A ledger entry retirement may act on: its slug, the site id the ledger holds for it, and its `modified_utc` after calsync's write. */
type Target = [slug: string, id: number, modified?: string];

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
  const journal = policy === 'keep' || o.dryRun ? undefined : await ledger.retirements('events');
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
  const retired = new Set<string>();
  await mapConcurrent(targets, o.concurrency ?? 8, (t) => retireOne(o, summary, t, retired));
  if (journal) await reportEarlier(o, summary, journal, retired);
}

/** How long a retirement stays recorded: an event back in its source within it is restored, not created again. */
export const RETIREMENT_KEPT_MS = 90 * 24 * 3_600_000;

/**
 * What an earlier delivery of this job retired (recorded by remove(), the entries gone) is reported
 * as this delivery's too, once; records older than RETIREMENT_KEPT_MS are forgotten.
 */
async function reportEarlier(o: RetireOptions, summary: NonNullable<RunReport['retire']>, journal: Map<string, Retirement>, retired: Set<string>): Promise<void> {
  const old: string[] = [];
  const before = new Date(Date.now() - RETIREMENT_KEPT_MS).toISOString();
  for (const [slug, r] of journal) {
    if (r.at < before) old.push(slug);
    if (o.mark === undefined || r.run !== o.mark || retired.has(slug)) continue;
    summary.candidates++;
    summary.retired++;
    o.report.add({ kind: 'events', slug, siteId: r.id, outcome: 'retired', reason: r.reason, earlier: true });
  }
  await o.ledger.forgetRetirements('events', old);
}

/** Retires one target by the policy, unless `preserveEdits` finds it edited on the site since calsync wrote it. */
async function retireOne(o: RetireOptions, summary: NonNullable<RunReport['retire']>, [slug, id, modified]: Target, retired: Set<string>): Promise<void> {
  const { ledger, report, policy } = o;
  const why = o.cancelled.has(slug) ? 'cancelled in the source' : 'no longer in the source';
  const done = async (how: string): Promise<void> => {
    const reason = `${why}; ${how}`;
    if (!o.dryRun) await ledger.remove('events', slug, { ...(o.mark !== undefined ? { run: o.mark } : {}), id, reason, at: new Date().toISOString() });
    retired.add(slug);
    summary.retired++;
    report.add({ kind: 'events', slug, siteId: id, outcome: 'retired', reason });
  };
  try {
    // The record is read when the policy needs it (draft keeps its fields) or an edit must be seen.
    const rec = (policy === 'draft' && !o.dryRun) || o.preserveEdits ? await o.client.events.get(id, { lang: o.lang }) : undefined;
    if (o.preserveEdits && modified && rec?.modified_utc && rec.modified_utc > modified) {
      report.warn(`${slug} (site id ${id}) was edited on the site at ${rec.modified_utc} UTC, after calsync last wrote it: ${why}, but not retired (--on-edit preserve)`);
      return;
    }
    if (o.dryRun) {
      report.add({ kind: 'events', slug, siteId: id, outcome: 'retired', reason: `${why}; would be ${policy === 'draft' ? 'set to draft' : 'trashed'} (dry run)` });
      summary.retired++;
      return;
    }
    if (policy === 'draft') await o.client.events.update(id, { ...recordToBody(rec!), status: 'draft' }, { lang: o.lang });
    else await o.client.events.delete(id, { lang: o.lang });
    await done(policy === 'draft' ? 'set to draft' : 'moved to trash');
  } catch (err) {
    if (isGone(err)) await done('already deleted on the site');
    else {
      summary.failed++;
      report.warn(`could not retire ${slug} (site id ${id}): ${(err as Error).message}`);
    }
  }
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
    if (o.cancelled.has(slug)) cancelled.push([slug, e.id, e.modified]);
    else if (covers(e)) vanished.push([slug, e.id, e.modified]);
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
    return e ? [[slug, e.id, e.modified] as Target] : [];
  });
  return { vanished: held(vanished), cancelled: held(cancelled) };
}
