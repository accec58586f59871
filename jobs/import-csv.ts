import path from 'node:path';
import type { Job } from 'bullmq';
import { z } from 'zod';
import type { CalsyncConfig } from '../src/config/schema.ts';
import { addFlow } from '../src/queue/flow.ts';
import { readStoredIfAny, writeStored } from '../src/queue/stored.ts';
import { shortRowsWarning } from '../src/sources/csv/index.ts';
import { defineJob, type JobDeps } from '../src/queue/job-definition.ts';
import { chunks, csvOpener, guardCsvOverlap, inspect, prepareCsv, processChunk, readsDefaultZone, type CsvChunk, type CsvImportParams, type RejectRow } from '../src/runs/import-csv.ts';
import { RunReport, type ReportJson } from '../src/report/report.ts';
import { RunFailedError, runContext, type RunContext } from '../src/runs/context.ts';
import { settleSourceKey, withSettledKey } from '../src/runs/source-key.ts';
import { CsvImportOptions, csvOptionsFromSource, csvParams } from '../src/runs/options/import-csv.ts';
import { assembleRejects, capFailures, omittedWarning, spoolChunkRejects } from './csv-rejects.ts';
import { ConfiguredSiteName, importRunLockKey, importRunName, QueueLocation } from './payload.ts';
import { acquireRunLock, keepRunLock, releaseRunLock, underRunLock } from '../src/queue/run-lock.ts';
import { CsvChunkMissingError, UnknownConfigEntryError } from '../src/queue/job-errors.ts';

/** A chunk job's return value (kept in Redis): its report with failures capped, and a count of rejected rows. */
interface QueuedChunkResult {
  report: ReportJson;
  omitted: number;
  rejects: number;
}

/** Ad-hoc options as a queue may carry them (jobs/payload.ts): no allow list, no rejects path, a configured site. */
export const QueuedCsvImport = CsvImportOptions.omit({ allow: true, rejects: true }).extend({ location: QueueLocation, site: ConfiguredSiteName }).strict();

export const ImportCsvPayload = z.union([z.strictObject({ source: z.string().min(1), dryRun: z.boolean().optional() }), QueuedCsvImport]);
export type ImportCsvPayload = z.infer<typeof ImportCsvPayload>;

export function resolveCsvPayload(payload: ImportCsvPayload, config: CalsyncConfig): CsvImportOptions & { configured: boolean } {
  // Only config sources' allow lists exempt a feed from the SSRF guard.
  if ('location' in payload) return { ...payload, allow: [], configured: false };
  const s = config.sources.find((x) => x.name === payload.source);
  if (!s || s.kind !== 'csv') throw new UnknownConfigEntryError(`no CSV source named "${payload.source}"`);
  return { ...csvOptionsFromSource(s), dryRun: payload.dryRun ?? false, configured: true };
}

const chunkKey = (deps: JobDeps, runId: string, i: number) => `${deps.prefix}:csv:${runId}:chunk:${i}`;

/**
 * A CSV run holds its source's run lock from its planner to its finish job, renewed by every job of
 * the run, so a second run of the source waits (or, scheduled, is skipped) instead of writing the
 * same rows beside it: two at once created each new row twice (the second copy trashed) and both
 * reported the same venues created. It expires by itself if every worker dies.
 */
const LOCK_TTL_MS = 10 * 60_000;

// A chunk as the planner stored it: rows with their line, cells and normalized result (src/sources/csv/types.ts).
const StoredChunk = z.strictObject({
  index: z.number().int().min(0),
  items: z.array(z.looseObject({ line: z.number().int(), raw: z.array(z.string()), result: z.looseObject({ ok: z.boolean() }) })),
});

/** A stored chunk, checked by its schema (StoredStateError when corrupted); undefined when Redis no longer has it. */
async function readChunk(deps: JobDeps, runId: string, i: number): Promise<CsvChunk | undefined> {
  const chunk = await readStoredIfAny(deps.redis, chunkKey(deps, runId, i), StoredChunk, `chunk ${i} of CSV run ${runId}`);
  return chunk as CsvChunk | undefined;
}

const RunId = z.string().regex(/^[A-Za-z0-9_-]+$/, 'a run id (letters, digits, - and _)');
const RunRef = z.strictObject({ runId: RunId, payload: ImportCsvPayload, chunks: z.number().int().min(0), headers: z.array(z.string()), delimiter: z.string(), unmapped: z.array(z.string()), rows: z.number(), shortRows: z.number().int().optional(), overlap: z.string().max(2000).optional(), setAside: z.string().max(2000).optional(), defaultTimezone: z.strictObject({ zone: z.string(), from: z.string() }).optional() });

/**
 * `import-csv` plans a flow: it streams the file once, stores each chunk of parsed rows in Redis
 * and adds a parent (`import-csv-finish`) with one child per chunk (`import-csv-chunk`), which any
 * number of workers process in parallel. Job ids derive from the planner's id, so a planner that
 * is retried after a crash re-adds the same jobs and BullMQ ignores the ones that exist: finished
 * chunks are not redone.
 */
export const importCsvJob = defineJob({
  name: 'import-csv',
  queue: 'import',
  payload: ImportCsvPayload,
  historyName: importRunName,
  async process(job, payload, deps, signal) {
    const o = resolveCsvPayload(payload, deps.config);
    const run = runContext(deps, { signal, logFields: { jobId: job.id } });
    // The key is settled before any row is read; a feed found under the key earlier versions
    // derived is planned again under it (src/runs/source-key.ts), and its chunks settle on it too.
    return withSettledKey(csvParams(o, deps.config, { allowFiles: o.configured }), run, (p) => planCsv(job, payload, p, deps, run));
  },
});

async function planCsv(job: Job, payload: ImportCsvPayload, input: CsvImportParams, deps: JobDeps, run: RunContext) {
  const runId = `csv-${String(job.id).replace(/[^A-Za-z0-9_-]/g, '-')}`;
  const lockKey = importRunLockKey(deps.prefix, input);
  await acquireRunLock(deps.redis, lockKey, runId, `source "${input.sourceKey}"`, LOCK_TTL_MS);
  const stop = keepRunLock(deps.redis, lockKey, runId, LOCK_TTL_MS);
  try {
    return await planFlow(job, payload, input, deps, run, runId);
  } catch (err) {
    await releaseRunLock(deps.redis, lockKey, runId);
    throw err;
  } finally {
    stop();
  }
}

async function planFlow(job: Job, payload: ImportCsvPayload, input: CsvImportParams, deps: JobDeps, run: RunContext, runId: string) {
  const signal = run.signal;
  // Preflight and the site's zone for rows without one, before any row is read (src/runs/import-csv.ts).
  const { params, zone, setAside } = await prepareCsv(input, run);
  const open = await csvOpener(params, signal);
  const inspection = await inspect(params, open);
  let n = 0;
  let planned = 0;
  let overlap: string | undefined;
  let floating = false;
  for await (const chunk of chunks(params, open, inspection)) {
    // Cut off (the worker's shutdown): no further chunk is read or stored, and the worker puts the
    // job back in the queue. Its rerun reads the file again under the same run id: each chunk
    // goes to the same key (none twice), and the flow is added only once all are stored.
    stopIfAborted(signal);
    if (chunk.index === 0) overlap = await guardCsvOverlap(params, chunk, run);
    floating ||= readsDefaultZone(chunk);
    await writeStored(deps.redis, chunkKey(deps, runId, chunk.index), chunk);
    n = chunk.index + 1;
    // The rows this chunk holds: the last one is short (counting it as chunkSize drew 500/30, 1666%).
    planned += chunk.items.length;
    await job.updateProgress({ phase: 'plan', done: Math.min(planned, inspection.rows), total: inspection.rows });
  }
  stopIfAborted(signal);
  const ref = { runId, payload, chunks: n, headers: inspection.headers, delimiter: inspection.delimiter, unmapped: inspection.unmapped, rows: inspection.rows, ...(inspection.shortRows ? { shortRows: inspection.shortRows } : {}), ...(overlap ? { overlap } : {}), ...(setAside ? { setAside } : {}), ...(floating ? { defaultTimezone: zone } : {}) };
  await addFlow(deps, {
    name: 'import-csv-finish',
    data: ref,
    jobId: `${runId}-finish`,
    children: Array.from({ length: n }, (_, i) => ({ name: 'import-csv-chunk', data: { runId, payload, chunk: i }, jobId: `${runId}-chunk-${i}` })),
  });
  return { runId, chunks: n, rows: inspection.rows, finishJobId: `${runId}-finish` };
}

function stopIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new RunFailedError('aborted', 'the run was cancelled');
}

export const importCsvChunkJob = defineJob({
  name: 'import-csv-chunk',
  part: 'piece',
  queue: 'import',
  payload: z.strictObject({ runId: RunId, payload: ImportCsvPayload, chunk: z.number().int().min(0) }),
  historyName: (p) => importRunName(p.payload),
  async process(job, p, deps, signal): Promise<QueuedChunkResult> {
    const o = resolveCsvPayload(p.payload, deps.config);
    const ctx = runContext(deps, { runId: p.runId, job, signal, logFields: { jobId: job.id } });
    // The key the planner settled on (it recorded which one is this location's: src/runs/source-key.ts).
    const params = await settleSourceKey(csvParams(o, deps.config, { allowFiles: o.configured }), ctx, { part: true });
    const chunk = await readChunk(deps, p.runId, p.chunk);
    if (!chunk) throw new CsvChunkMissingError(`chunk ${p.chunk} of run ${p.runId} is no longer in Redis (expired or deleted); re-enqueue the import`);
    const r = await underRunLock(deps.redis, importRunLockKey(deps.prefix, params), p.runId, LOCK_TTL_MS, () => processChunk(params, chunk, ctx));
    // The raw rejected rows go to disk, not into this job's return value in Redis.
    await spoolChunkRejects(deps.config.dataDir, p.runId, p.chunk, r.rejects);
    return { ...capFailures(r.report), rejects: r.rejects.length };
  },
});

export const importCsvFinishJob = defineJob({
  name: 'import-csv-finish',
  part: 'finish',
  queue: 'import',
  payload: RunRef,
  historyName: (p) => importRunName(p.payload),
  async process(job, ref, deps): Promise<ReportJson & { rejectsFile?: string }> {
    const o = resolveCsvPayload(ref.payload, deps.config);
    const params = await settleSourceKey(csvParams(o, deps.config), runContext(deps, { logFields: { jobId: job.id } }), { part: true });
    try {
      return await finishRun(job, ref, deps, params);
    } finally {
      await releaseRunLock(deps.redis, importRunLockKey(deps.prefix, params), ref.runId);
    }
  },
});

/** The run's report, from its chunks' reports and failures, and its rejects file; the stored chunks deleted. */
async function finishRun(job: Job, ref: z.infer<typeof RunRef>, deps: JobDeps, params: CsvImportParams): Promise<ReportJson & { rejectsFile?: string }> {
  const report = new RunReport({ id: ref.runId, kind: 'import-csv', source: params.sourceKey, site: params.site.name, language: params.lang, dryRun: params.dryRun, startedAt: new Date(job.timestamp).toISOString() });
  if (ref.unmapped.length) report.warn(`columns not mapped to any field (ignored): ${ref.unmapped.join(', ')}`);
  const short = shortRowsWarning(ref.shortRows);
  if (short) report.warn(short);
  if (ref.overlap) report.warn(ref.overlap);
  if (ref.setAside) report.warn(ref.setAside);
  if (ref.defaultTimezone) report.defaultTimezone = ref.defaultTimezone;
  let omitted = 0;
  for (const value of Object.values(await job.getChildrenValues<QueuedChunkResult>())) {
    report.mergeChunk(value.report, params.kind);
    omitted += value.omitted ?? 0;
  }
  // Chunks that failed every attempt: their rows are failed items, nothing silently lost.
  const failedRows = new Map<number, RejectRow[]>();
  for (const [key, reason] of Object.entries(await job.getIgnoredChildrenFailures())) {
    const i = Number(/-chunk-(\d+)$/.exec(key)?.[1]);
    // A chunk Redis lost or that reads back corrupted: no row of it is known to list.
    const chunk = (Number.isInteger(i) ? await readChunk(deps, ref.runId, i).catch(() => undefined) : undefined) ?? { index: i, items: [] };
    const why = `chunk ${i} failed: ${reason}`;
    for (const item of chunk.items) report.add({ kind: params.kind, outcome: 'failed', reason: why, origin: { source: path.basename(params.location), line: item.line } });
    failedRows.set(i, chunk.items.map((item) => ({ line: item.line, raw: item.raw, reason: why })));
  }
  const rejectsFile = await assembleRejects(deps.config.dataDir, ref.runId, ref.chunks, { headers: ref.headers, delimiter: ref.delimiter }, async (i) => failedRows.get(i) ?? []);
  const capped = capFailures(report.finish());
  omitted += capped.omitted;
  if (omitted) capped.report.warnings.push(omittedWarning(omitted));
  const keys = Array.from({ length: ref.chunks }, (_, i) => chunkKey(deps, ref.runId, i));
  if (keys.length) await deps.redis.del(...keys);
  return { ...capped.report, ...(rejectsFile ? { rejectsFile } : {}) };
}
