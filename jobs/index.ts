import type { JobDefinition } from '../src/queue/job-definition.ts';
import { importIcsJob } from './import-ics.ts';

/** Every job kind the worker can run, by job name. */
export const JOBS: Record<string, JobDefinition> = {
  [importIcsJob.name]: importIcsJob as JobDefinition,
};
