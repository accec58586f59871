import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { ReportJson } from '../report/report.ts';

/**
 * A run retried after a failed attempt is recorded once, when its last attempt ends: what the
 * attempts before it met and wrote is kept in the job's own log (BullMQ's, in Redis with the job),
 * so the run's record tells all of it, not only how the last attempt ended.
 */
const FailedAttempt = z.object({ attempt: z.number(), startedAt: z.number(), durationMs: z.number(), error: z.string(), wrote: z.string().optional() });
type FailedAttempt = z.infer<typeof FailedAttempt>;

const TAG = 'calsync failed attempt ';

/** What a failed attempt wrote before it failed, from the report its error carries (src/runs/context.ts). */
function wroteOf(err: unknown): string | undefined {
  const counts = (err as { report?: ReportJson } | undefined)?.report?.counts;
  if (!counts) return undefined;
  let created = 0;
  let updated = 0;
  let retired = 0;
  for (const c of Object.values(counts)) {
    created += c.created;
    updated += c.updated;
    retired += c.retired;
  }
  return created + updated + retired > 0 ? `${created} created, ${updated} updated, ${retired} retired` : undefined;
}

export async function noteFailedAttempt(job: Job, startedAt: number, err: unknown): Promise<void> {
  const wrote = wroteOf(err);
  const row: FailedAttempt = { attempt: job.attemptsMade + 1, startedAt, durationMs: Date.now() - startedAt, error: (err as Error).message, ...(wrote ? { wrote } : {}) };
  await job.log(TAG + JSON.stringify(row));
}

async function earlierAttempts(redis: Redis, job: Job): Promise<FailedAttempt[]> {
  // The list BullMQ's Job.log appends to (Queue.getJobLogs reads the same key).
  const rows = await redis.lrange(`${job.queueQualifiedName}:${job.id}:logs`, 0, 99).catch(() => []);
  const out: FailedAttempt[] = [];
  for (const row of rows) {
    if (!row.startsWith(TAG)) continue;
    const parsed = FailedAttempt.safeParse(JSON.parse(row.slice(TAG.length)));
    if (parsed.success) out.push(parsed.data);
  }
  return out;
}

/** The whole run as its record shows it: from its first attempt's start, every attempt's error and writes. */
export async function wholeRun(redis: Redis, job: Job, last: { startedAt: number; err: unknown }): Promise<{ startedAt: number; durationMs: number; error: string }> {
  const error = (last.err as Error).message;
  const earlier = await earlierAttempts(redis, job);
  if (earlier.length === 0) return { startedAt: last.startedAt, durationMs: Date.now() - last.startedAt, error };
  const startedAt = Math.min(last.startedAt, ...earlier.map((e) => e.startedAt));
  const told = earlier.map((e) => `attempt ${e.attempt} after ${(e.durationMs / 1000).toFixed(1)} s${e.wrote ? ` (${e.wrote})` : ''}: ${e.error}`);
  const wrote = wroteOf(last.err);
  return { startedAt, durationMs: Date.now() - startedAt, error: `${error}${wrote ? ` (${wrote})` : ''}; earlier: ${told.join('; ')}` };
}
