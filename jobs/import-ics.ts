import { z } from 'zod';
import type { CalsyncConfig } from '../src/config/schema.ts';
import { defineJob } from '../src/queue/job-definition.ts';
import { withRunLock } from '../src/queue/run-lock.ts';
import { ConfiguredSiteName, importRunLockKey, importRunName, QueueLocation } from './payload.ts';
import { runIcsImport } from '../src/runs/import-ics.ts';
import { IcsImportOptions, icsOptionsFromSource, icsParams } from '../src/runs/options/import-ics.ts';
import type { ReportJson } from '../src/report/report.ts';
import { runContext } from '../src/runs/context.ts';
import { UnknownConfigEntryError } from '../src/queue/job-errors.ts';

/** Ad-hoc options as a queue may carry them (jobs/payload.ts): no allow list, a configured site, a URL without secrets. */
export const QueuedIcsImport = IcsImportOptions.omit({ allow: true }).extend({ location: QueueLocation, site: ConfiguredSiteName }).strict();

/** Payload of `import-ics`: a configured source by name, or ad-hoc options. */
export const ImportIcsPayload = z.union([z.strictObject({ source: z.string().min(1), dryRun: z.boolean().optional() }), QueuedIcsImport]);
export type ImportIcsPayload = z.infer<typeof ImportIcsPayload>;

export function resolveIcsPayload(payload: ImportIcsPayload, config: CalsyncConfig): IcsImportOptions {
  // Only config sources' allow lists exempt a feed from the SSRF guard.
  if ('location' in payload) return { ...payload, allow: [] };
  const src = config.sources.find((s) => s.name === payload.source);
  if (!src || src.kind !== 'ics') throw new UnknownConfigEntryError(`no ICS source named "${payload.source}"`);
  return { ...icsOptionsFromSource(src), dryRun: payload.dryRun ?? false };
}

export const importIcsJob = defineJob({
  name: 'import-ics',
  queue: 'import',
  payload: ImportIcsPayload,
  historyName: importRunName,
  async process(job, payload, deps, signal): Promise<ReportJson> {
    const opts = resolveIcsPayload(payload, deps.config);
    // Local files are only for the CLI; a configured source may name one (the demo's bundled feeds).
    const configured = !('location' in payload);
    const params = icsParams(opts, deps.config, { allowFiles: configured });
    const key = importRunLockKey(deps.prefix, params);
    // The run lock outlives a dead worker exactly as long as BullMQ's job lock does: the delivery
    // that takes over a stalled job waits at most one more lockDuration, not a fixed minute.
    const ttlMs = deps.config.worker.lockDurationMs;
    const run = (): Promise<ReportJson> => runIcsImport(params, runContext(deps, {
      runId: job.id,
      job,
      signal,
      logFields: { jobId: job.id, source: opts.source, site: opts.site },
      onProgress: (p) => job.updateProgress(p),
    }));
    return withRunLock(deps.redis, key, String(job.id), `source "${params.sourceKey}"`, run, ttlMs);
  },
});
