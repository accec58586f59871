import { DelayedError, Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import { hostname } from 'node:os';
import { pid } from 'node:process';
import { RunLockedError } from './run-lock.ts';
import { noteFailedAttempt, wholeReport, wholeRun } from './attempts.ts';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { CalsyncConfig } from '../config/schema.ts';
import { CalsyncError } from '../errors/calsync-error.ts';
import { isUnrecoverableCode, type ErrorCode } from '../errors/codes.ts';
import { JobKindUnknownError, JobPayloadError } from './job-errors.ts';
import type { ReportJson } from '../report/report.ts';
import { bullConnection, workerConnection } from './connection.ts';
import { RunHistory } from './history.ts';
import type { JobDefinition, JobDeps } from './job-definition.ts';
import { ALL_QUEUES, JOB_RETRY, QUEUES, RETENTION, servedWith, type Family, type QueueName } from './names.ts';
import { RedisRateLimiter } from './rate-limiter.ts';
import { METRIC_KEYS, MetricsRecorder } from '../metrics/recorder.ts';
import { redactText } from '../util/redact.ts';

export interface WorkerOptions {
  config: CalsyncConfig;
  redisUrl: string;
  jobs: Record<string, JobDefinition>;
  log: Logger;
  /** BullMQ key prefix; tests isolate themselves with a random one. @defaultValue 'calsync' */
  prefix?: string;
  /** Families to serve (each with its companion queues, names.ts). */
  queues?: Family[];
  /** Jobs in flight per queue. */
  concurrency?: Partial<Record<QueueName, number>>;
}

export interface RunningWorkers {
  workers: Worker[];
  deps: JobDeps;
  /**
   * Stop taking jobs, let running ones finish up to `timeoutMs`, then cut them off (they are
   * retried). Resolves `true` when a job did not stop when cut off: the caller ends the process.
   */
  close(timeoutMs?: number): Promise<boolean>;
}

/** BullMQ's reason when a job was taken over more than maxStalledCount times (its worker kept dying). */
const STALLED_TOO_OFTEN = 'job stalled more than allowable limit';
/**
 * Failures that are not a run of the source (the queued job itself is malformed, or names a source
 * this worker's config does not have): kept out of the run history, so they never pause a source.
 */
const NOT_A_RUN: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['job-kind-unknown', 'job-payload-invalid', 'config-entry-unknown']);

/** What every part of a worker process shares. */
interface WorkerContext {
  o: WorkerOptions;
  history: RunHistory;
  metrics: MetricsRecorder;
  deps: JobDeps;
}

export async function startWorkers(o: WorkerOptions): Promise<RunningWorkers> {
  const prefix = o.prefix ?? 'calsync';
  const redis = workerConnection(o.redisUrl, { warn: (m) => o.log.warn(m), info: (m) => o.log.info(m) });
  const history = new RunHistory(redis, { prefix, keep: o.config.history.keep, pauseAfterFailures: o.config.history.pauseAfterFailures });
  const metrics = new MetricsRecorder(redis, prefix);
  const ctx: WorkerContext = { o, history, metrics, deps: jobDeps(o, redis, prefix, history, metrics) };
  const processor = jobProcessor(ctx);
  // BullMQ stores it on each job it takes (job.processedBy): which machine and process ran it.
  const workerName = `${hostname()}:${pid}`;
  const workers = (o.queues ?? [...QUEUES]).flatMap(servedWith).map((q) => startWorker(ctx, q, prefix, workerName, processor));
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  return {
    workers,
    deps: ctx.deps,
    close: (timeoutMs = o.config.worker.shutdownTimeoutMs) => closeWorkers(workers, redis, metrics, o.log, timeoutMs),
  };
}

function jobDeps(o: WorkerOptions, redis: Redis, prefix: string, history: RunHistory, metrics: MetricsRecorder): JobDeps {
  const limiters = new Map<string, RedisRateLimiter | undefined>();
  return {
    config: o.config,
    redis,
    redisUrl: o.redisUrl,
    prefix,
    log: o.log,
    history,
    // Each job builds its own clients: their connections outlive the job, for the next one.
    sharePools: true,
    limiterFor: (siteKey) => {
      if (!limiters.has(siteKey)) {
        const site = o.config.sites.find((s) => s.name === siteKey);
        limiters.set(siteKey, site?.requestsPerSecond ? new RedisRateLimiter(redis, `${prefix}:ratelimit:${siteKey}`, site.requestsPerSecond) : undefined);
      }
      return limiters.get(siteKey);
    },
    onRequest: (site, info) => {
      metrics.inc(METRIC_KEYS.requests, { site, method: info.method, status: info.status });
      if (info.attempt > 1) metrics.inc(METRIC_KEYS.retries, { site });
      if (info.status === 429) metrics.inc(METRIC_KEYS.throttled, { site });
    },
  };
}

function startWorker(ctx: WorkerContext, q: QueueName, prefix: string, workerName: string, processor: Processor): Worker {
  const { o } = ctx;
  const w = new Worker(q, processor, {
    connection: bullConnection(o.redisUrl),
    prefix,
    name: workerName,
    concurrency: o.concurrency?.[q] ?? o.config.worker.concurrency[q] ?? (q === 'import' ? 4 : 2),
    removeOnComplete: RETENTION.removeOnComplete,
    removeOnFail: RETENTION.removeOnFail,
    lockDuration: o.config.worker.lockDurationMs,
    stalledInterval: o.config.worker.stalledIntervalMs,
    maxStalledCount: o.config.worker.maxStalledCount,
  });
  // Without an error listener a worker may stop processing (BullMQ docs).
  w.on('error', (err) => o.log.error({ err: err.message, queue: q }, 'worker error'));
  w.on('failed', (job, err) => {
    o.log.warn({ jobId: job?.id, job: job?.name, err: err.message }, 'job failed');
    if (job && err.message === STALLED_TOO_OFTEN) void recordPoison(ctx, job);
  });
  w.on('completed', (job) => o.log.info({ jobId: job.id, job: job.name }, 'job completed'));
  return w;
}

/** The reason a worker's shutdown gives the running jobs it cuts off (their processors' abort signal). */
const CUT_OFF = 'cut off by the worker\'s shutdown timeout';
/** How long jobs get to end after their signals were aborted, before the worker stops waiting for them. */
const CUT_OFF_GRACE_MS = 5_000;

/** True when `p` is still pending after `ms`. */
async function outlasts(p: Promise<unknown>, ms: number): Promise<boolean> {
  return Promise.race([p.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), ms).unref())]);
}

/** Resolves `true` when a job ignored the cut-off and was left running: only ending the process stops it. */
async function closeWorkers(workers: Worker[], redis: Redis, metrics: MetricsRecorder, log: Logger, timeoutMs: number): Promise<boolean> {
  // worker.close() waits for active jobs with no timeout and can hang when Redis is gone
  // (bullmq #4656): race it against a timer, then cut the jobs off.
  const graceful = Promise.all(workers.map((w) => w.close()));
  let abandoned = false;
  if (await outlasts(graceful, timeoutMs)) {
    log.warn({ timeoutMs }, 'jobs still running at the shutdown timeout; cutting them off (they will be retried)');
    // Not close(true): once close() has started it returns that same close, which waits for the
    // jobs. Aborting their signals is what ends them (processJob puts them back in the queue).
    for (const w of workers) w.cancelAllJobs(CUT_OFF);
    abandoned = await outlasts(graceful, CUT_OFF_GRACE_MS);
    if (abandoned) log.error({ graceMs: CUT_OFF_GRACE_MS }, 'the workers did not close after the cut-off (a job ignored it, or Redis is unreachable); the process ends, and a job left running is taken over once its lock lapses');
  }
  // What the last jobs counted, before the connection goes; not waiting on a Redis that is gone
  // (this connection queues commands until it is back).
  await Promise.race([metrics.flush(), new Promise((r) => setTimeout(r, 1000).unref())]);
  redis.disconnect();
  return abandoned;
}

type Processor = (job: Job, token?: string, signal?: AbortSignal) => Promise<unknown>;

/**
 * The processor BullMQ calls. An error whose code is unrecoverable (src/errors/codes.ts) leaves as
 * BullMQ's UnrecoverableError, so the job fails without spending its remaining attempts.
 */
function jobProcessor(ctx: WorkerContext): Processor {
  return async (job, token, signal) => {
    try {
      return await processJob(ctx, job, token, signal);
    } catch (err) {
      throw isUnrecoverable(err) && !(err instanceof UnrecoverableError) ? new UnrecoverableError((err as Error).message) : err;
    }
  };
}

function isUnrecoverable(err: unknown): boolean {
  return err instanceof UnrecoverableError || (err instanceof CalsyncError && isUnrecoverableCode(err.code));
}

/** The job's definition and its payload checked by the kind's schema; throws job-kind-unknown or job-payload-invalid. */
function parseJob(jobs: Record<string, JobDefinition>, job: Job): { def: JobDefinition; payload: unknown } {
  const def = jobs[job.name];
  if (!def) throw new JobKindUnknownError(job.name);
  const parsed = def.payload.safeParse(job.data);
  if (!parsed.success) throw new JobPayloadError(job.name, parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`));
  return { def, payload: parsed.data };
}

async function processJob(ctx: WorkerContext, job: Job, token?: string, signal?: AbortSignal): Promise<unknown> {
  const { def, payload } = parseJob(ctx.o.jobs, job);
  const name = def.historyName(payload);
  const paused = def.part ? undefined : await ctx.history.paused(name);
  if (paused) {
    ctx.o.log.warn({ jobId: job.id, name }, 'source is paused; run skipped');
    return { paused: true, name, lastError: paused.lastError };
  }
  // BullMQ counts each time a job's lock expired under a worker that stopped answering (killed, hung).
  if (job.stalledCounter > 0) ctx.o.log.warn({ jobId: job.id, name, stalled: job.stalledCounter }, 'taking over a job whose worker stopped answering (its lock expired): what that worker wrote is not written again');
  const started = Date.now();
  try {
    return await recordSuccess(ctx, { job, def, name, started }, await def.process(job, payload, ctx.deps, signal));
  } catch (err) {
    const locked = whenLocked(job, err, token);
    if (locked === 'skip') {
      ctx.o.log.info({ jobId: job.id, name }, 'a run of this source is still in progress: this scheduled run is skipped (the schedule starts the next one)');
      return { skipped: true, name, reason: 'a run of this source was still in progress' };
    }
    if (locked === 'wait') return waitForLock(ctx, job, name, (err as RunLockedError).message, token);
    return failed(ctx, { job, def, name, started, token, cutOff: signal?.aborted === true && signal.reason === CUT_OFF }, err);
  }
}

/**
 * What a run does when another run of its source (or sync pair) holds the run lock (RunLockedError);
 * undefined for any other error.
 * - skip: a scheduled run, locked out by another run. Waiting for it (as an enqueued run does)
 *   only piles the schedule's runs up behind a long one, to run back to back for nothing.
 * - wait: any other run (enqueued, or an earlier delivery of this same run still holding the lock)
 *   comes back later, without spending an attempt or counting towards the auto-pause.
 * - fail: a job that cannot be moved to delayed (no lock token) fails like any other error.
 */
function whenLocked(job: Job, err: unknown, token?: string): 'skip' | 'wait' | 'fail' | undefined {
  if (!(err instanceof RunLockedError)) return undefined;
  if (!err.sameRun && job.repeatJobKey !== undefined) return 'skip';
  return token ? 'wait' : 'fail';
}

/** Puts a locked-out run back in the queue for 2-4 s (BullMQ's DelayedError tells it the job moved). */
async function waitForLock(ctx: WorkerContext, job: Job, name: string, message: string, token?: string): Promise<never> {
  ctx.o.log.info({ jobId: job.id, name }, redactText(message));
  await job.moveToDelayed(Date.now() + 2000 + Math.floor(Math.random() * 2000), token);
  throw new DelayedError();
}

/**
 * A finished run recorded and counted, and the job's result it returns: a run that succeeded on a
 * retry as the whole run (src/queue/attempts.ts), so the stored result (`enqueue --wait`, the
 * dashboard API), the history and the item metrics all count what its earlier attempts wrote, once.
 */
async function recordSuccess(ctx: WorkerContext, a: Attempt, result: unknown): Promise<unknown> {
  const { metrics } = ctx;
  const { job, name, started } = a;
  let returned = result;
  if (isReport(result)) {
    const whole = await wholeReport(ctx.deps.redis, job, result);
    returned = whole.report;
    await ctx.history.record({ ...RunHistory.fromReport(name, whole.report, job.id), ...(whole.note ? { error: whole.note } : {}) });
    for (const [kind, c] of Object.entries(whole.report.counts)) {
      for (const outcome of ['created', 'updated', 'unchanged', 'skipped', 'failed', 'retired'] as const) metrics.inc(METRIC_KEYS.items, { run: job.name, kind, outcome }, c[outcome]);
    }
  } else if (a.def.record) {
    const rec = a.def.record(result);
    await ctx.history.record({ ...rec, id: String(job.id), name, status: 'ok', startedAt: new Date(started).toISOString(), durationMs: Date.now() - started, failures: [], jobId: job.id });
  }
  metrics.inc(METRIC_KEYS.jobs, { kind: job.name, outcome: 'completed' });
  metrics.observe(METRIC_KEYS.jobSeconds, { kind: job.name }, (Date.now() - started) / 1000);
  return returned;
}

interface Attempt {
  job: Job;
  def: JobDefinition;
  name: string;
  started: number;
  token?: string;
  /** The worker's shutdown aborted it: not a failure of the run. */
  cutOff?: boolean;
}

/** A run that threw (not one waiting for the run lock): counted, recorded when final, and rethrown. */
async function failed(ctx: WorkerContext, a: Attempt, err: unknown): Promise<never> {
  const { job } = a;
  // BullMQ stores the message as the job's failedReason (Redis, dashboard): no URL secrets in it.
  if (err instanceof Error) err.message = redactText(err.message);
  if (a.cutOff && a.token) {
    // Cut off by this worker's shutdown: the next worker runs it, as a rerun (writes are upserts
    // checked against the ledger), without spending an attempt or recording a failed run.
    ctx.o.log.info({ jobId: job.id, name: a.name }, 'cut off at shutdown; put back in the queue');
    await job.moveToDelayed(Date.now(), a.token);
    throw new DelayedError();
  }
  ctx.metrics.inc(METRIC_KEYS.jobs, { kind: job.name, outcome: 'failed' });
  ctx.metrics.observe(METRIC_KEYS.jobSeconds, { kind: job.name }, (Date.now() - a.started) / 1000);
  const finalAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1) || isUnrecoverable(err);
  const notARun = err instanceof CalsyncError && NOT_A_RUN.has(err.code);
  if (a.def.part !== 'piece' && !notARun) {
    if (!finalAttempt) await noteFailedAttempt(job, a.started, err).catch(() => undefined);
    else await recordFailedRun(ctx, { name: a.name, kind: job.name, jobId: job.id, ...(await wholeRun(ctx.deps.redis, job, { startedAt: a.started, err })) });
  }
  throw err;
}

/** Records a failed run in the history, and says so when that paused its source. */
async function recordFailedRun(ctx: WorkerContext, r: { name: string; kind: string; jobId?: string; startedAt: number; durationMs: number; error: string }): Promise<void> {
  const { paused } = await ctx.history.record({
    id: String(r.jobId),
    name: r.name,
    kind: r.kind,
    status: 'failed',
    startedAt: new Date(r.startedAt).toISOString(),
    durationMs: r.durationMs,
    failures: [],
    error: r.error,
    jobId: r.jobId,
  });
  if (paused) ctx.o.log.error({ name: r.name }, `paused after ${ctx.o.config.history.pauseAfterFailures} failed runs in a row; \`calsync resume ${r.name}\` resumes it`);
}

/**
 * A job whose worker process died under it more than maxStalledCount times is failed by BullMQ
 * without our processor seeing it: record it in the run history like any failed run, so a
 * scheduled source that kills its worker is paused after pauseAfterFailures, instead of taking a
 * worker down on every tick.
 */
async function recordPoison(ctx: WorkerContext, job: Job): Promise<void> {
  const def = ctx.o.jobs[job.name];
  const parsed = def?.payload.safeParse(job.data);
  if (!def || !parsed?.success || def.part === 'piece') return;
  const name = def.historyName(parsed.data);
  ctx.metrics.inc(METRIC_KEYS.jobs, { kind: job.name, outcome: 'failed' });
  const error = `the worker running this job stopped ${ctx.o.config.worker.maxStalledCount + 1} times (out of memory, killed or blocked); the job was failed so it cannot take workers down again`;
  try {
    await recordFailedRun(ctx, { name, kind: job.name, jobId: job.id, startedAt: job.processedOn ?? job.timestamp, durationMs: 0, error });
  } catch (err) {
    ctx.o.log.error({ err: (err as Error).message, jobId: job.id }, 'could not record the stalled job in the run history');
  }
}

function isReport(x: unknown): x is ReportJson {
  return !!x && typeof x === 'object' && 'counts' in x && 'run' in x;
}

/** Producer side: one Queue per family, with retention and retry defaults. */
export function openQueues(redisUrl: string, prefix = 'calsync'): Record<QueueName, Queue> {
  const out = {} as Record<QueueName, Queue>;
  for (const q of ALL_QUEUES) {
    out[q] = new Queue(q, {
      connection: bullConnection(redisUrl),
      prefix,
      defaultJobOptions: { ...JOB_RETRY.run, ...RETENTION },
    });
    out[q].on('error', () => undefined);
  }
  return out;
}
