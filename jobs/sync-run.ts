import type { Job } from 'bullmq';
import { JobStateMissingError } from '../src/queue/job-errors.ts';
import type { CalsyncConfig } from '../src/config/schema.ts';
import type { Language } from '../src/model/languages.ts';
import type { JobDeps } from '../src/queue/job-definition.ts';
import { underRunLock } from '../src/queue/run-lock.ts';
import { runContext, type RunContext } from '../src/runs/context.ts';
import { syncParams } from '../src/runs/options/sync-site.ts';
import type { RunReport } from '../src/report/report.ts';
import { SiteSync, syncReport, type SyncParams } from '../src/runs/sync-site.ts';
import { resolveSyncPayload, type RunRef } from './sync-payload.ts';

/** Held from planning until sync-finish, renewed by every job of the run; expires if all workers die. */
export const LOCK_TTL_MS = 10 * 60_000;

/** The params of one language, with the window the planner resolved (relative dates must not drift between jobs). */
export function paramsOf(ref: RunRef & { lang: Language }, config: CalsyncConfig): SyncParams {
  const p = syncParams(resolveSyncPayload(ref.payload, config), config).find((x) => x.lang === ref.lang);
  if (!p) throw new JobStateMissingError(`language ${ref.lang} is no longer part of this sync`);
  return { ...p, window: { from: new Date(ref.window.from), to: new Date(ref.window.to) } };
}

export function syncJobContext(deps: JobDeps, job: Job, runId: string, logFields: Record<string, unknown>, signal?: AbortSignal): RunContext {
  return runContext(deps, { runId, job, signal, logFields: { jobId: job.id, ...logFields } });
}

/** Runs `fn` holding (and renewing) the run's lock; a run whose lock was lost keeps going (its writes are idempotent). */
export function underLock<T>(deps: JobDeps, ref: RunRef, fn: () => Promise<T>): Promise<T> {
  return underRunLock(deps.redis, ref.lockKey, ref.runId, LOCK_TTL_MS, fn);
}

/**
 * Runs `fn` with a SiteSync for one piece of a run's language (a page, or the language's retire
 * step): the language's params, the job's context and a report of the piece's own. The sync is
 * closed whatever happens; the report is returned for the job to finish.
 */
export async function withPieceSync(deps: JobDeps, job: Job, ref: RunRef & { lang: Language }, logFields: Record<string, unknown>, signal: AbortSignal | undefined, fn: (sync: SiteSync) => Promise<void>): Promise<RunReport> {
  const p = paramsOf(ref, deps.config);
  const ctx = syncJobContext(deps, job, ref.runId, logFields, signal);
  const sync = new SiteSync(p, ctx, syncReport(p, ctx, ref.runId));
  try {
    await fn(sync);
  } finally {
    await sync.close();
  }
  return sync.report;
}
