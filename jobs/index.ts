import type { JobDefinition } from '../src/queue/job-definition.ts';
import { exportIcsJob } from './export-ics.ts';
import { importCsvChunkJob, importCsvFinishJob, importCsvJob } from './import-csv.ts';
import { importIcsJob } from './import-ics.ts';
import { syncFinishJob } from './sync-finish.ts';
import { syncLanguageJob } from './sync-language.ts';
import { syncPageJob } from './sync-page.ts';
import { syncPlanJob } from './sync-plan.ts';
import { syncSiteJob } from './sync-site.ts';

/** Every job kind the worker can run, by job name. */
export const JOBS: Record<string, JobDefinition> = {
  [importIcsJob.name]: importIcsJob as JobDefinition,
  [importCsvJob.name]: importCsvJob as JobDefinition,
  [importCsvChunkJob.name]: importCsvChunkJob as JobDefinition,
  [importCsvFinishJob.name]: importCsvFinishJob as JobDefinition,
  [syncSiteJob.name]: syncSiteJob as JobDefinition,
  [syncPlanJob.name]: syncPlanJob as JobDefinition,
  [syncPageJob.name]: syncPageJob as JobDefinition,
  [syncLanguageJob.name]: syncLanguageJob as JobDefinition,
  [syncFinishJob.name]: syncFinishJob as JobDefinition,
  [exportIcsJob.name]: exportIcsJob as JobDefinition,
};
