import type { Queue } from 'bullmq';
import { intervalMs, type CalsyncConfig } from '../config/schema.ts';
import { stableStringify } from '../model/fingerprint.ts';
import type { QueueName } from './names.ts';

export interface DesiredScheduler {
  id: string;
  queue: QueueName;
  jobName: string;
  repeat: { every: number } | { pattern: string };
  data: Record<string, unknown>;
}

export interface SchedulerChange {
  action: 'added' | 'updated' | 'removed' | 'unchanged';
  id: string;
  queue: QueueName;
  schedule?: string;
}

/** Scheduler ids calsync owns; anything else in the queues is left alone. */
const OWN = /^(source|export|sync):/;

function repeatOf(schedule: string): DesiredScheduler['repeat'] {
  const every = intervalMs(schedule);
  return every !== undefined ? { every } : { pattern: schedule.trim() };
}

export function desiredSchedulers(config: CalsyncConfig): DesiredScheduler[] {
  const out: DesiredScheduler[] = [];
  for (const s of config.sources) {
    if (s.schedule) out.push({ id: `source:${s.name}`, queue: 'import', jobName: s.kind === 'ics' ? 'import-ics' : 'import-csv', repeat: repeatOf(s.schedule), data: { source: s.name } });
  }
  for (const e of config.exports) {
    if (e.schedule) out.push({ id: `export:${e.name}`, queue: 'export', jobName: 'export-ics', repeat: repeatOf(e.schedule), data: { export: e.name } });
  }
  for (const s of config.syncs) {
    if (s.schedule) out.push({ id: `sync:${s.name}`, queue: 'sync', jobName: 'sync-site', repeat: repeatOf(s.schedule), data: { sync: s.name } });
  }
  return out;
}

/**
 * Makes the BullMQ job schedulers match the config: adds new ones, updates changed ones, removes
 * ones no longer declared, and says what it changed. Upserts are idempotent, so every worker may
 * run this at start.
 */
export async function reconcileSchedulers(queues: Record<QueueName, Queue>, config: CalsyncConfig): Promise<SchedulerChange[]> {
  const desired = desiredSchedulers(config);
  const changes: SchedulerChange[] = [];
  for (const [qname, queue] of Object.entries(queues) as [QueueName, Queue][]) {
    const existing = await queue.getJobSchedulers(0, -1, true);
    const want = desired.filter((d) => d.queue === qname);
    const wantIds = new Set(want.map((d) => d.id));
    for (const ex of existing) {
      if (OWN.test(ex.key) && !wantIds.has(ex.key)) {
        await queue.removeJobScheduler(ex.key);
        changes.push({ action: 'removed', id: ex.key, queue: qname });
      }
    }
    for (const d of want) {
      const ex = existing.find((e) => e.key === d.id);
      const schedule = 'every' in d.repeat ? `every ${d.repeat.every} ms` : d.repeat.pattern;
      const same =
        ex &&
        ex.name === d.jobName &&
        ('every' in d.repeat ? Number(ex.every) === d.repeat.every && !ex.pattern : ex.pattern === d.repeat.pattern) &&
        stableStringify(ex.template?.data ?? {}) === stableStringify(d.data);
      if (same) {
        changes.push({ action: 'unchanged', id: d.id, queue: qname, schedule });
        continue;
      }
      await queue.upsertJobScheduler(d.id, d.repeat, { name: d.jobName, data: d.data });
      changes.push({ action: ex ? 'updated' : 'added', id: d.id, queue: qname, schedule });
    }
  }
  return changes;
}
