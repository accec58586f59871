import path from 'node:path';
import { RejectsFile, type RejectRow } from '../src/runs/rejects-file.ts';
import type { ReportJson } from '../src/report/report.ts';

/**
 * Rejected rows of a queued CSV run go to disk, never through Redis: each chunk job spools its
 * rows to `<dataDir>/rejects/<runId>.parts/chunk-<i>.json`, and the finish job writes the parts,
 * in row order, into `<dataDir>/rejects/<runId>.csv` (src/runs/rejects-file.ts). The paths are
 * derived from the run id only (jobs/payload.ts: a payload never names a file). Workers on several
 * machines need a shared data directory for the parts (docker-compose.yml mounts one volume into
 * every worker).
 */

/** Failed items kept per report; the counts stay exact and the rejects file holds every row. */
export const MAX_FAILURES_KEPT = 100;

const rejectsOf = (dataDir: string, runId: string) => new RejectsFile(path.join(dataDir, 'rejects', `${runId}.csv`), path.join(dataDir, 'rejects', `${runId}.parts`));

/** Spools one chunk's rejected rows (atomically: a retried chunk replaces its own part). */
export async function spoolChunkRejects(dataDir: string, runId: string, chunk: number, rows: RejectRow[]): Promise<void> {
  await rejectsOf(dataDir, runId).spool(chunk, rows);
}

/**
 * Writes the run's rejects file from the chunk parts. `fallback` gives the rows of a chunk with no
 * part (a chunk that failed every attempt). Returns the file, or undefined when nothing was rejected.
 */
export async function assembleRejects(
  dataDir: string,
  runId: string,
  chunks: number,
  csv: { headers: string[]; delimiter: string },
  fallback: (chunk: number) => Promise<RejectRow[]>,
): Promise<string | undefined> {
  return rejectsOf(dataDir, runId).write(chunks, csv, fallback);
}

/**
 * A report with at most `max` failed items listed (the first ones) and how many were left out;
 * counts are untouched. Keeps a 2 M-row run's report small in Redis and on the dashboard; every
 * rejected row is in the rejects file.
 */
export function capFailures(report: ReportJson, max = MAX_FAILURES_KEPT): { report: ReportJson; omitted: number } {
  let failed = 0;
  const items = report.items.filter((i) => i.outcome !== 'failed' || ++failed <= max);
  return failed <= max ? { report, omitted: 0 } : { report: { ...report, items }, omitted: failed - max };
}

export const omittedWarning = (n: number) => `${n} more failed rows are not listed here; each is in the rejects file with its reason`;
