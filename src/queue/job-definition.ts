import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { CalsyncConfig } from '../config/schema.ts';
import type { RunContext } from '../runs/context.ts';
import type { RunHistory, RunRecord } from './history.ts';
import type { JobKind, QueueName } from './names.ts';

/** What every processor gets from the worker that runs it. */
export interface JobDeps {
  config: CalsyncConfig;
  redis: Redis;
  redisUrl: string;
  prefix: string;
  log: Logger;
  history: RunHistory;
  limiterFor: NonNullable<RunContext['limiterFor']>;
  onRequest: NonNullable<RunContext['onRequest']>;
  /** A job's clients reuse the process's keep-alive connections (src/api/pools.ts). */
  sharePools?: boolean;
}

/**
 * A job kind: its payload schema (payloads hold references such as a source or site name, never
 * data or secrets) and its processor, thin glue over `src/runs/`.
 */
export interface JobDefinition<S extends z.ZodType = z.ZodType, R = unknown> {
  name: JobKind;
  queue: QueueName;
  payload: S;
  /** Name runs are recorded under in the history (source/export/sync name). */
  historyName(payload: z.infer<S>): string;
  /**
   * A job within a planned run runs even if its source was paused after planning. A `piece` (CSV
   * chunk, sync page or language) also keeps its failures out of the auto-pause count: the run's
   * `finish` job reports them, and its own failure counts as the run's.
   */
  part?: 'piece' | 'finish';
  /**
   * What a successful run whose result is not a report (an export) keeps in the history: its kind and
   * counts. Without a record a success would not end its name's run of failures, and three failed
   * exports between successes paused the export.
   */
  record?(result: R): Pick<RunRecord, 'kind' | 'counts'>;
  process(job: Job<z.infer<S>>, payload: z.infer<S>, deps: JobDeps, signal?: AbortSignal): Promise<R>;
}

export function defineJob<S extends z.ZodType, R>(def: JobDefinition<S, R>): JobDefinition<S, R> {
  return def;
}
