/** One queue per job family (DESIGN "Queues"); the job name selects the processor. */
export const QUEUES = ['import', 'export', 'sync'] as const;
export type QueueName = (typeof QUEUES)[number];

export const JOB_KINDS = {
  'import-ics': 'import',
  'import-csv': 'import',
  'import-csv-chunk': 'import',
  'import-csv-finish': 'import',
  'export-ics': 'export',
  'sync-site': 'sync',
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
