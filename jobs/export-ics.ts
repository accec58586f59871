import { z } from 'zod';
import { resolveDateSpec } from '../src/config/dates.ts';
import type { CalsyncConfig, ExportConfig } from '../src/config/schema.ts';
import { resolveSite } from '../src/config/sites.ts';
import { runIcsExport, type ExportParams, type ExportResult } from '../src/runs/export-ics.ts';
import { runContext } from '../src/runs/context.ts';
import { defineJob } from '../src/queue/job-definition.ts';

export const ExportIcsPayload = z.strictObject({ export: z.string().min(1) });

/** The export declared in the config → run parameters (window resolved against now). */
export function exportParams(e: ExportConfig, config: CalsyncConfig, now = new Date()): ExportParams {
  const site = resolveSite(e.site, config);
  return {
    name: e.name,
    connection: site.connection,
    siteKey: site.key,
    languages: e.languages ?? site.languages,
    window: { from: resolveDateSpec(e.from, now), to: resolveDateSpec(e.to, now, true) },
    filters: { categories: e.categories, tags: e.tags, venue: e.venue, organizer: e.organizer, featured: e.featured, search: e.search, status: e.status },
    outDir: e.outDir,
    refreshInterval: e.refreshInterval,
  };
}

/** `export-ics`: renders a configured export's feeds and writes them atomically for `calsync serve`. */
export const exportIcsJob = defineJob({
  name: 'export-ics',
  queue: 'export',
  payload: ExportIcsPayload,
  historyName: (p) => p.export,
  async process(job, payload, deps, signal): Promise<ExportResult> {
    const e = deps.config.exports.find((x) => x.name === payload.export);
    if (!e) throw new Error(`no export named "${payload.export}" in the config`);
    const params = exportParams(e, deps.config);
    return runIcsExport(params, runContext(deps, { runId: job.id, signal, logFields: { jobId: job.id, export: e.name }, onProgress: (p) => job.updateProgress(p) }));
  },
});
