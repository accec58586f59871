import { DelayedError, Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import { hostname } from 'node:os';
import { pid } from 'node:process';
import { RunLockedError } from './run-lock.ts';
import type { Logger } from 'pino';
import type { CalsyncConfig } from '../config/schema.ts';
import { RunFailedError } from '../runs/context.ts';
import type { ReportJson } from '../report/report.ts';
import { bullConnection, workerConnection } from './connection.ts';
import { RunHistory } from './history.ts';
import type { JobDefinition, JobDeps } from './job-definition.ts';
import { QUEUES, RETENTION, type QueueName } from './names.ts';
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
  queues?: QueueName[];
  /** Jobs in flight per queue. */
  concurrency?: Partial<Record<QueueName, number>>;
}

export interface RunningWorkers {
  workers: Worker[];
  deps: JobDeps;
  /** Stop taking jobs, let running ones finish up to `timeoutMs`, then cut them off (they are retried). */
  close(timeoutMs?: number): Promise<void>;
}

/** Runs that fail as a whole for reasons a retry cannot fix. */
const UNRECOVERABLE = new Set(['uid-churn', 'aborted', 'ics-too-many-occurrences', 'ics-memory-limit', 'ics-time-limit']);
/** BullMQ's reason when a job was taken over more than maxStalledCount times (its worker kept dying). */
const STALLED_TOO_OFTEN = 'job stalled more than allowable limit';

export async function startWorkers(o: WorkerOptions): Promise<RunningWorkers> {
  const prefix = o.prefix ?? 'calsync';
  const redis = workerConnection(o.redisUrl);
  const history = new RunHistory(redis, { prefix, keep: o.config.history.keep, pauseAfterFailures: o.config.history.pauseAfterFailures });
  const limiters = new Map<string, RedisRateLimiter | undefined>();
  const metrics = new MetricsRecorder(redis, prefix);
  const deps: JobDeps = {
    config: o.config,
    redis,
    redisUrl: o.redisUrl,
    prefix,
    log: o.log,
    history,
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

  const process = async (job: Job, token?: string, signal?: AbortSignal) => {
    const def = o.jobs[job.name];
    if (!def) throw new UnrecoverableError(`unknown job kind "${job.name}"`);
    const parsed = def.payload.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`invalid ${job.name} payload: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
    const name = def.historyName(parsed.data);
    const paused = def.part ? undefined : await history.paused(name);
    if (paused) {
      o.log.warn({ jobId: job.id, name }, 'source is paused; run skipped');
      return { paused: true, name, lastError: paused.lastError };
    }
    const started = Date.now();
    try {
      const result = await def.process(job, parsed.data, deps, signal);
      if (isReport(result)) {
        await history.record(RunHistory.fromReport(name, result, job.id));
        for (const [kind, c] of Object.entries(result.counts)) {
          for (const outcome of ['created', 'updated', 'unchanged', 'skipped', 'failed', 'retired'] as const) metrics.inc(METRIC_KEYS.items, { run: job.name, kind, outcome }, c[outcome]);
        }
      }
      metrics.inc(METRIC_KEYS.jobs, { kind: job.name, outcome: 'completed' });
      metrics.observe(METRIC_KEYS.jobSeconds, { kind: job.name }, (Date.now() - started) / 1000);
      return result;
    } catch (err) {
      // BullMQ stores the message as the job's failedReason (Redis, dashboard): no URL secrets in it.
      if (err instanceof Error) err.message = redactText(err.message);
      if (err instanceof RunLockedError && token) {
        // Another run of the same source is writing: come back later, without spending an attempt
        // or counting towards the auto-pause.
        o.log.info({ jobId: job.id, name }, err.message);
        await job.moveToDelayed(Date.now() + 2000 + Math.floor(Math.random() * 2000), token);
        throw new DelayedError();
      }
      metrics.inc(METRIC_KEYS.jobs, { kind: job.name, outcome: 'failed' });
      metrics.observe(METRIC_KEYS.jobSeconds, { kind: job.name }, (Date.now() - started) / 1000);
      const finalAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1) || err instanceof UnrecoverableError || (err instanceof RunFailedError && UNRECOVERABLE.has(err.code));
      if (finalAttempt && def.part !== 'piece' && !(err instanceof UnrecoverableError && String(err.message).startsWith('invalid '))) {
        const { paused: nowPaused } = await history.record({
          id: String(job.id),
          name,
          kind: job.name,
          status: 'failed',
          startedAt: new Date(started).toISOString(),
          durationMs: Date.now() - started,
          failures: [],
          error: (err as Error).message,
          jobId: job.id,
        });
        if (nowPaused) o.log.error({ name }, `paused after ${o.config.history.pauseAfterFailures} failed runs in a row; \`calsync resume ${name}\` resumes it`);
      }
      if (err instanceof RunFailedError && UNRECOVERABLE.has(err.code)) throw new UnrecoverableError(err.message);
      throw err;
    }
  };

  /**
   * A job whose worker process died under it more than maxStalledCount times is failed by BullMQ
   * without our processor seeing it: record it in the run history like any failed run, so a
   * scheduled source that kills its worker is paused after pauseAfterFailures, instead of taking a
   * worker down on every tick.
   */
  const recordPoison = async (job: Job): Promise<void> => {
    const def = o.jobs[job.name];
    const parsed = def?.payload.safeParse(job.data);
    if (!def || !parsed?.success || def.part === 'piece') return;
    const name = def.historyName(parsed.data);
    metrics.inc(METRIC_KEYS.jobs, { kind: job.name, outcome: 'failed' });
    try {
      const { paused } = await history.record({
        id: String(job.id),
        name,
        kind: job.name,
        status: 'failed',
        startedAt: new Date(job.processedOn ?? job.timestamp).toISOString(),
        durationMs: 0,
        failures: [],
        error: `the worker running this job stopped ${o.config.worker.maxStalledCount + 1} times (out of memory, killed or blocked); the job was failed so it cannot take workers down again`,
        jobId: job.id,
      });
      if (paused) o.log.error({ name }, `paused after ${o.config.history.pauseAfterFailures} failed runs in a row; \`calsync resume ${name}\` resumes it`);
    } catch (err) {
      o.log.error({ err: (err as Error).message, jobId: job.id }, 'could not record the stalled job in the run history');
    }
  };

  const queues = o.queues ?? [...QUEUES];
  // BullMQ stores it on each job it takes (job.processedBy): which machine and process ran it.
  const workerName = `${hostname()}:${pid}`;
  const workers = queues.map((q) => {
    const w = new Worker(q, process, {
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
      if (job && err.message === STALLED_TOO_OFTEN) void recordPoison(job);
    });
    w.on('completed', (job) => o.log.info({ jobId: job.id, job: job.name }, 'job completed'));
    return w;
  });
  await Promise.all(workers.map((w) => w.waitUntilReady()));

  return {
    workers,
    deps,
    async close(timeoutMs = o.config.worker.shutdownTimeoutMs) {
      // worker.close() waits for active jobs with no timeout and can hang when Redis is gone
      // (bullmq #4656): race it against a timer, then force.
      const graceful = Promise.all(workers.map((w) => w.close()));
      const timedOut = await Promise.race([graceful.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), timeoutMs).unref())]);
      if (timedOut) {
        o.log.warn({ timeoutMs }, 'jobs still running at the shutdown timeout; cutting them off (they will be retried)');
        await Promise.all(workers.map((w) => w.close(true).catch(() => undefined)));
      }
      redis.disconnect();
    },
  };
}

function isReport(x: unknown): x is ReportJson {
  return !!x && typeof x === 'object' && 'counts' in x && 'run' in x;
}

/** Producer side: one Queue per family, with retention and retry defaults. */
export function openQueues(redisUrl: string, prefix = 'calsync'): Record<QueueName, Queue> {
  const out = {} as Record<QueueName, Queue>;
  for (const q of QUEUES) {
    out[q] = new Queue(q, {
      connection: bullConnection(redisUrl),
      prefix,
      defaultJobOptions: { attempts: 3, backoff: { type: 'exponential', delay: 5000, jitter: 0.5 }, ...RETENTION },
    });
    out[q].on('error', () => undefined);
  }
  return out;
}
