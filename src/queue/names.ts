/** One queue per job family (DESIGN "Queues"); the job name selects the processor. */
export const QUEUES = ['import', 'export', 'sync'] as const;
export type Family = (typeof QUEUES)[number];

/**
 * Queues a worker serving a family also serves, with slots of their own: a sync's planners
 * (`sync-plan`, mostly waiting on the source) run beside its page writes instead of taking one
 * of the slots that write them.
 */
export const COMPANIONS = { sync: ['sync-plan'] } as const satisfies Partial<Record<Family, readonly string[]>>;
export type QueueName = Family | (typeof COMPANIONS)[keyof typeof COMPANIONS][number];
export const ALL_QUEUES: readonly QueueName[] = [...QUEUES, ...Object.values(COMPANIONS).flat()];

/** A family's queues: its own and its companions. */
export function servedWith(q: Family): QueueName[] {
  return [q, ...((COMPANIONS as Partial<Record<Family, readonly QueueName[]>>)[q] ?? [])];
}

export const JOB_KINDS = {
  'import-ics': 'import',
  'import-csv': 'import',
  'import-csv-chunk': 'import',
  'import-csv-finish': 'import',
  'export-ics': 'export',
  'sync-site': 'sync',
  'sync-plan': 'sync-plan',
  'sync-page': 'sync',
  'sync-language': 'sync',
  'sync-finish': 'sync',
} as const satisfies Record<string, QueueName>;
export type JobKind = keyof typeof JOB_KINDS;

/** Keeps Redis from growing without bound (BullMQ keeps finished jobs forever by default). */
export const RETENTION = {
  removeOnComplete: { age: 7 * 24 * 3600, count: 1000 },
  removeOnFail: { age: 30 * 24 * 3600, count: 5000 },
} as const;

/**
 * How jobs retry, in one place. The queues' defaults (src/queue/worker.ts openQueues) do not reach
 * flow jobs, which FlowProducer adds directly (src/queue/flow.ts), so each side takes its own here.
 */
export const JOB_RETRY = {
  /** A run's own job (an import, export or sync as enqueued or scheduled): a whole run again, so later and spread out. */
  run: { attempts: 3, backoff: { type: 'exponential', delay: 5000, jitter: 0.5 } },
  /** A job of a planned flow (a CSV chunk, a sync plan, page, language or finish, and their planner's flow parent): a small piece, soon. */
  flow: { attempts: 3, backoff: { type: 'exponential', delay: 2000 } },
} as const;
