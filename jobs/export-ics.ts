import { z } from 'zod';
import { runIcsExport, type ExportResult } from '../src/runs/export-ics.ts';
import { runContext } from '../src/runs/context.ts';
import { exportParams } from '../src/runs/options/export-ics.ts';
import { defineJob } from '../src/queue/job-definition.ts';
import { UnknownConfigEntryError } from '../src/queue/job-errors.ts';

export const ExportIcsPayload = z.strictObject({ export: z.string().min(1) });

/** `export-ics`: renders a configured export's feeds and writes them atomically for `calsync serve`. */
export const exportIcsJob = defineJob({
  name: 'export-ics',
  queue: 'export',
  payload: ExportIcsPayload,
  historyName: (p) => p.export,
  record: (r: ExportResult) => ({ kind: 'export-ics', counts: { exported: Object.fromEntries(r.files.map((f) => [f.lang, f.events])) } }),
  async process(job, payload, deps, signal): Promise<ExportResult> {
    const e = deps.config.exports.find((x) => x.name === payload.export);
    if (!e) throw new UnknownConfigEntryError(`no export named "${payload.export}"`);
    const params = exportParams(e, deps.config);
    return runIcsExport(params, runContext(deps, { runId: job.id, signal, logFields: { jobId: job.id, export: e.name }, onProgress: (p) => job.updateProgress(p) }));
  },
});
