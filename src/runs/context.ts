import type { Redis } from 'ioredis';
import { CircuitBreaker, type CalendarClient, type RequestInfo, type SiteConnection } from '../api/index.ts';
import type { Logger } from 'pino';
import type { Language } from '../model/languages.ts';
import { MemoryLedger, RedisLedger, type Ledger } from '../write/ledger.ts';
import { jobMark, type JobIdentity } from '../write/job-mark.ts';
import type { ReportJson } from '../report/report.ts';
import { MemoryState, RedisState, type StateStore } from './fetch-state.ts';
import { CalsyncError } from '../errors/calsync-error.ts';
import type { ErrorCode } from '../errors/codes.ts';

/** Progress of a run, reported to BullMQ job progress or the CLI's progress bar. */
export interface RunProgress {
  phase: string;
  done: number;
  total?: number;
}

/** What a run gets from whoever runs it (CLI inline, or a BullMQ job). */
export interface RunContext {
  /** Redis for ledger and state; without it a run keeps them in memory (still no duplicates). */
  redis?: Redis;
  prefix?: string;
  log?: Logger;
  signal?: AbortSignal;
  runId?: string;
  /**
   * The queued job this run (or piece of a run) is, as its ledger entries name it: a delivery that
   * takes over from a killed worker, or retries, reports the earlier one's writes (src/write/job-mark.ts).
   * None for an inline CLI run.
   */
  jobMark?: string;
  onProgress?: (p: RunProgress) => unknown;
  /** External rate limiter shared by all workers for a site. */
  limiterFor?: (siteKey: string) => { acquire(signal?: AbortSignal): Promise<void> } | undefined;
  /** Metrics hook per request attempt, by site. */
  onRequest?: (siteKey: string, info: RequestInfo) => void;
  /** One circuit breaker per site for the whole run (the CSV run's chunks share it); absent: one per client. */
  breakers?: Map<string, CircuitBreaker>;
  /** Clients take their connections from the process's pools (SiteConnection.sharePool): the worker's jobs. */
  sharePools?: boolean;
}

/** Whoever hosts runs: the worker (its JobDeps) or the CLI's inline runtime. */
export interface RunHost {
  redis?: Redis;
  prefix?: string;
  log?: Logger;
  limiterFor?: RunContext['limiterFor'];
  onRequest?: RunContext['onRequest'];
  sharePools?: boolean;
}

/** What differs between two runs (or two jobs of one run) on the same host. */
export interface RunScope {
  runId?: string;
  /** The BullMQ job that runs it (jobMark). */
  job?: JobIdentity;
  signal?: AbortSignal;
  /** Fields every log line of the run carries (job id, source, language, page…). */
  logFields?: Record<string, unknown>;
  onProgress?: RunContext['onProgress'];
}

/**
 * The one place a RunContext is built, for every job kind (ICS, CSV plan and chunks, sync plan,
 * pages and languages, export) and the CLI: whatever the host offers (Redis, the shared request
 * limit, request metrics) reaches every run. Contexts written out by hand per job are how exports
 * once lost the limiter and CSV chunks their request metrics.
 */
export function runContext(host: RunHost, scope: RunScope = {}): RunContext {
  return {
    redis: host.redis,
    prefix: host.prefix,
    log: host.log && scope.logFields ? host.log.child(scope.logFields) : host.log,
    signal: scope.signal,
    runId: scope.runId,
    jobMark: scope.job ? jobMark(scope.job) : undefined,
    onProgress: scope.onProgress,
    limiterFor: host.limiterFor,
    onRequest: host.onRequest,
    sharePools: host.sharePools,
  };
}

/** The per-site options every run passes to its CalendarClient. */
export function clientHooks(ctx: RunContext, siteKey: string, restRoot?: string): Pick<SiteConnection, 'limiter' | 'onRequest' | 'breaker' | 'sharePool'> {
  let breaker = ctx.breakers?.get(siteKey);
  if (!breaker && ctx.breakers && restRoot) ctx.breakers.set(siteKey, (breaker = new CircuitBreaker(new URL(restRoot).origin)));
  return {
    limiter: ctx.limiterFor?.(siteKey),
    ...(breaker ? { breaker } : {}),
    ...(ctx.onRequest ? { onRequest: (info: RequestInfo) => ctx.onRequest?.(siteKey, info) } : {}),
    ...(ctx.sharePools ? { sharePool: true } : {}),
  };
}

export function ledgerFor(ctx: RunContext, scope: { site: string; language: Language | string; source: string }): Ledger {
  return ctx.redis ? new RedisLedger(ctx.redis, scope, ctx.prefix) : new MemoryLedger();
}

export function stateFor(ctx: RunContext): StateStore {
  return ctx.redis ? new RedisState(ctx.redis, ctx.prefix) : new MemoryState();
}

/** Raised for a run that failed as a whole (exit code 1): the feed could not be read, the guard tripped… */
export class RunFailedError extends CalsyncError {
  readonly code: ErrorCode;
  /** The run's report up to the failure, with `failure` set (what `--json` prints). */
  report?: ReportJson;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RunFailedError';
    this.code = code;
  }
}

/** A client whose site stopped answering ends the run (exit 1) instead of failing every remaining item. */
export function throwIfSiteDown(client: CalendarClient): void {
  const down = client.breaker.error;
  if (down) throw new RunFailedError(down.code, down.message, { cause: down });
}

/** Attaches the report so far to a run failure, so `--json` and job results still carry one. */
export function failedWith(err: unknown, report: { finish(): ReportJson; failure?: { code: string; message: string } }): unknown {
  if (!(err instanceof RunFailedError) || err.report) return err;
  report.failure = { code: err.code, message: err.message };
  err.report = report.finish();
  return err;
}
