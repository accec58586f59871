import { createWriteStream } from 'node:fs';
import { mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { once } from 'node:events';
import type { RejectRow } from '../src/runs/import-csv.ts';
import { rejectsWidth, writeRejectsCsv } from '../src/sources/csv/index.ts';
import type { ReportJson } from '../src/report/report.ts';

/**
 * Rejected rows of a queued CSV run go to disk, never through Redis: each chunk job spools its
 * rows to `<dataDir>/rejects/<runId>.parts/chunk-<i>.json`, and the finish job streams the parts,
 * in row order, into `<dataDir>/rejects/<runId>.csv`. The path is derived from the run id only
 * (jobs/payload.ts: a payload never names a file). Workers on several machines need a shared
 * data directory for the parts (docker-compose.yml mounts one volume into every worker).
 */

/** Failed items kept per report; the counts stay exact and the rejects file holds every row. */
export const MAX_FAILURES_KEPT = 100;

export const rejectsFileOf = (dataDir: string, runId: string) => path.join(dataDir, 'rejects', `${runId}.csv`);
const partsDirOf = (dataDir: string, runId: string) => path.join(dataDir, 'rejects', `${runId}.parts`);
const partOf = (dataDir: string, runId: string, chunk: number) => path.join(partsDirOf(dataDir, runId), `chunk-${chunk}.json`);

/** Spools one chunk's rejected rows (atomically: a retried chunk replaces its own part). */
export async function spoolChunkRejects(dataDir: string, runId: string, chunk: number, rows: RejectRow[]): Promise<void> {
  const file = partOf(dataDir, runId, chunk);
  if (rows.length === 0) return void (await rm(file, { force: true }));
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  // The part's width on a line of its own ahead of its rows: the finish job needs every part's
  // width before it writes the header, and reads it without parsing the rows.
  await writeFile(tmp, `${JSON.stringify({ width: rejectsWidth(rows) })}\n${JSON.stringify(rows)}`);
  await rename(tmp, file);
}

/**
 * Writes the run's rejects file from the chunk parts, one chunk in memory at a time. `fallback`
 * gives the rows of a chunk with no part (a chunk that failed every attempt). Returns the file,
 * or undefined when nothing was rejected.
 */
export async function assembleRejects(
  dataDir: string,
  runId: string,
  chunks: number,
  csv: { headers: string[]; delimiter: string },
  fallback: (chunk: number) => Promise<RejectRow[]>,
): Promise<string | undefined> {
  const file = rejectsFileOf(dataDir, runId);
  await mkdir(path.dirname(file), { recursive: true });
  // Every row is padded to the widest row of the whole run, so `line` and `reason` sit under
  // their header in every chunk (padding each chunk to its own widest row shifted them).
  let width = 0;
  for (let i = 0; i < chunks; i++) width = Math.max(width, (await partWidth(partOf(dataDir, runId, i))) ?? rejectsWidth(await fallback(i)));
  const tmp = `${file}.${process.pid}.tmp`;
  const out = createWriteStream(tmp);
  let written = 0;
  try {
    for (let i = 0; i < chunks; i++) {
      const rows = (await readPart(partOf(dataDir, runId, i))) ?? (await fallback(i));
      if (rows.length === 0) continue;
      rows.sort((a, b) => a.line - b.line);
      const body = writeRejectsCsv(rows, csv.headers, csv.delimiter, { width, header: written === 0 });
      if (!out.write(body)) await once(out, 'drain');
      written += rows.length;
    }
  } finally {
    out.end();
    await once(out, 'close');
  }
  await rm(partsDirOf(dataDir, runId), { recursive: true, force: true });
  if (written === 0) return void (await rm(tmp, { force: true }));
  await rename(tmp, file);
  return file;
}

async function readPart(file: string): Promise<RejectRow[] | undefined> {
  try {
    const text = await readFile(file, 'utf8');
    // `{"width":N}` then the rows; a part spooled before widths were recorded is the rows alone.
    return JSON.parse(text.startsWith('{') ? text.slice(text.indexOf('\n') + 1) : text) as RejectRow[];
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** A part's width from its first line (a few bytes read), or undefined when there is no part. */
async function partWidth(file: string): Promise<number | undefined> {
  const fh = await open(file, 'r').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (!fh) return undefined;
  try {
    const { buffer, bytesRead } = await fh.read(Buffer.alloc(64), 0, 64, 0);
    const head = buffer.toString('latin1', 0, bytesRead);
    const end = head.indexOf('\n');
    if (head.startsWith('{') && end > 0) return (JSON.parse(head.slice(0, end)) as { width: number }).width;
  } finally {
    await fh.close();
  }
  return rejectsWidth((await readPart(file)) ?? []);
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
