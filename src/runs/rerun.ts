import { fingerprint } from '../model/fingerprint.ts';
import type { IcsImportParams } from './import-ics.ts';

/**
 * What an ICS run keeps per source between runs (fetch-state.ts): the feed's validators and content
 * hash, the options fingerprint they were processed with, and whether that run failed nothing.
 */
export interface FetchState {
  etag?: string;
  lastModified?: string;
  processedAt?: string;
  uidsSample?: string[];
  /** sha256 of the feed body the run processed. */
  sha?: string;
  /** optionsFingerprint() of that run. */
  options?: string;
  /** The run finished with no failed item, no failed or refused retirement. */
  clean?: boolean;
  /**
   * The queued job that ran it (RunContext.jobMark). A delivery of that same job, taking over from a
   * worker killed after this state was stored but before its job was completed, runs the feed again
   * to report the run (its writes, from the ledger): this state is not an earlier run's.
   */
  job?: string;
}

/** A day, so a horizon counted from "now" does not change the fingerprint every millisecond. */
const day = (d: Date) => d.toISOString().slice(0, 10);

/**
 * Every option that shapes what an ICS run writes or retires. A different value means the last
 * run's result says nothing about this one, however unchanged the feed is.
 */
export function optionsFingerprint(p: IcsImportParams, zone: string): string {
  return fingerprint({
    location: p.location,
    window: [day(p.window.from), day(p.window.to)],
    zone,
    status: p.status,
    categoriesAs: p.categoriesAs,
    createTerms: p.createTerms,
    retire: p.retire,
    onEdit: p.onEdit,
    forceRetire: p.forceRetire ?? false,
    maxRetireShare: p.maxRetireShare,
    namespace: p.site.connection.namespace,
  });
}

/**
 * The "unchanged, skip" shortcut (conditional GET, same content hash) may only rest on a state
 * written by a run that finished clean with the same options, recently enough that recurrences
 * entering the horizon still arrive (`refreshAfterMs`).
 */
export function reusableState(prev: FetchState, options: string, refreshAfterMs: number): boolean {
  if (prev.clean !== true || prev.options !== options || prev.processedAt === undefined) return false;
  return Date.now() - Date.parse(prev.processedAt) < refreshAfterMs;
}

/** A local path rather than a URL (fetch/location.ts reads those only for the CLI). */
export function isLocalLocation(location: string): boolean {
  return !/^[a-z][a-z0-9+.-]*:\/\//i.test(location) || /^file:\/\//i.test(location);
}

export function unchangedReason(local: boolean, notModified: boolean): string {
  if (local) return 'file unchanged since the last run';
  return notModified ? 'feed not modified since the last run (HTTP 304)' : 'feed content unchanged since the last run';
}
