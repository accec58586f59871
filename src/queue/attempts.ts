import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { ItemReport, type ReportJson } from '../report/report.ts';

/**
 * A run retried after a failed attempt is recorded once, when its last attempt ends (failed or
 * succeeded): what the attempts before it met and wrote is kept in the job's own log (BullMQ's, in
 * Redis with the job), so the run's record tells all of it, not only how the last attempt ended.
 */
const Writes = z.object({ created: z.number(), updated: z.number(), retired: z.number() });
type Writes = z.infer<typeof Writes>;
const FailedAttempt = z.object({
  attempt: z.number(),
  startedAt: z.number(),
  durationMs: z.number(),
  error: z.string(),
  wrote: z.string().optional(),
  /** What it wrote per item kind, for a later successful attempt's counts. */
  writes: z.record(z.string(), Writes).optional(),
  /** The requests it sent to the site(s), for a later successful attempt's report. */
  requests: z.object({ total: z.number(), retries: z.number(), throttled: z.number() }).optional(),
  /** The items it created, updated or retired, for a later successful attempt's items (when at most NOTED_ITEMS). */
  items: z.array(ItemReport).optional(),
});
type FailedAttempt = z.infer<typeof FailedAttempt>;

const TAG = 'calsync failed attempt ';
/** Written items a failed attempt's log row keeps at most (about 200 bytes each); beyond, only its counts. */
const NOTED_ITEMS = 5000;

/**
 * What a failed attempt wrote, item by item, from the report its error carries (undefined: none, or
 * too many to keep). Not the items it reported as an earlier attempt's writes (`earlier`): those are
 * in that attempt's row, and the ledger tells every later attempt about them again.
 */
function writtenItems(err: unknown): ItemReport[] | undefined {
  const items = (err as { report?: ReportJson } | undefined)?.report?.items ?? [];
  const written = items.filter((it) => it.slug !== undefined && !it.earlier && (it.outcome === 'created' || it.outcome === 'updated' || it.outcome === 'retired'));
  return written.length > 0 && written.length <= NOTED_ITEMS ? written : undefined;
}

/** Items a report tells as an earlier attempt's writes (ItemReport `earlier`), per kind. */
function earlierWritesIn(report: Pick<ReportJson, 'items'>): Record<string, Writes> {
  const out: Record<string, Writes> = {};
  for (const it of report.items) {
    if (!it.earlier || (it.outcome !== 'created' && it.outcome !== 'updated' && it.outcome !== 'retired')) continue;
    (out[it.kind] ??= { created: 0, updated: 0, retired: 0 })[it.outcome]++;
  }
  return out;
}

/** What a failed attempt wrote before it failed, per item kind, from the report its error carries (src/runs/context.ts). */
function writesOf(err: unknown): Record<string, Writes> | undefined {
  const report = (err as { report?: ReportJson } | undefined)?.report;
  if (!report) return undefined;
  const told = earlierWritesIn(report);
  const out: Record<string, Writes> = {};
  for (const [kind, c] of Object.entries(report.counts)) {
    const w = { created: c.created - (told[kind]?.created ?? 0), updated: c.updated - (told[kind]?.updated ?? 0), retired: c.retired - (told[kind]?.retired ?? 0) };
    if (w.created + w.updated + w.retired > 0) out[kind] = w;
  }
  return Object.keys(out).length ? out : undefined;
}

function wroteOf(err: unknown): string | undefined {
  const writes = writesOf(err);
  if (!writes) return undefined;
  const all = Object.values(writes);
  const sum = (k: keyof Writes) => all.reduce((n, w) => n + w[k], 0);
  return `${sum('created')} created, ${sum('updated')} updated, ${sum('retired')} retired`;
}

export async function noteFailedAttempt(job: Job, startedAt: number, err: unknown): Promise<void> {
  const wrote = wroteOf(err);
  const writes = writesOf(err);
  const requests = (err as { report?: ReportJson } | undefined)?.report?.requests;
  const items = writtenItems(err);
  const row: FailedAttempt = {
    attempt: job.attemptsMade + 1, startedAt, durationMs: Date.now() - startedAt, error: (err as Error).message,
    ...(wrote ? { wrote } : {}), ...(writes ? { writes } : {}), ...(requests ? { requests } : {}), ...(items ? { items } : {}),
  };
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

/** The earlier attempts, one clause each: `attempt 1 after 0.4 s (12 created, 0 updated, 0 retired): <its error>`. */
function earlierClauses(earlier: FailedAttempt[]): string {
  return earlier.map((e) => `attempt ${e.attempt} after ${(e.durationMs / 1000).toFixed(1)} s${e.wrote ? ` (${e.wrote})` : ''}: ${e.error}`).join('; ');
}

/** The whole run as its record shows it: from its first attempt's start, every attempt's error and writes. */
export async function wholeRun(redis: Redis, job: Job, last: { startedAt: number; err: unknown }): Promise<{ startedAt: number; durationMs: number; error: string }> {
  const error = (last.err as Error).message;
  const earlier = await earlierAttempts(redis, job);
  if (earlier.length === 0) return { startedAt: last.startedAt, durationMs: Date.now() - last.startedAt, error };
  const startedAt = Math.min(last.startedAt, ...earlier.map((e) => e.startedAt));
  const wrote = wroteOf(last.err);
  return { startedAt, durationMs: Date.now() - startedAt, error: `${error}${wrote ? ` (${wrote})` : ''}; earlier: ${earlierClauses(earlier)}` };
}

type Counts = ReportJson['counts'];

/**
 * The last attempt's counts with what the earlier attempts wrote put back: their creates and updates
 * that read as "unchanged" to the last attempt (the ledger knew them, without the job's mark: terms,
 * entries from before marks) move from unchanged to created/updated (never more than the unchanged
 * there are: each item is counted once, and `read` stays the sum); those it already told as an
 * earlier attempt's (`told`, from the job's mark in the ledger: src/write/job-mark.ts) are not moved
 * again. Their retirements are added (the last attempt no longer sees those items), but those the last
 * attempt told as an earlier attempt's (from the ledger's record of them: src/write/retire.ts).
 */
function withEarlierWrites(counts: Counts, earlier: FailedAttempt[], told: Record<string, Writes>): Counts {
  const out: Record<string, Counts[keyof Counts]> = {};
  for (const [kind, c] of Object.entries(counts)) out[kind] = { ...c };
  const wrote: Record<string, Writes> = {};
  for (const e of earlier) {
    for (const [kind, w] of Object.entries(e.writes ?? {})) {
      const sum = (wrote[kind] ??= { created: 0, updated: 0, retired: 0 });
      for (const k of ['created', 'updated', 'retired'] as const) sum[k] += w[k];
    }
  }
  for (const [kind, w] of Object.entries(wrote)) {
    const c = (out[kind] ??= { read: 0, created: 0, updated: 0, unchanged: 0, skipped: 0, failed: 0, retired: 0 });
    for (const outcome of ['created', 'updated'] as const) {
      const moved = Math.min(Math.max(0, w[outcome] - (told[kind]?.[outcome] ?? 0)), c.unchanged);
      c[outcome] += moved;
      c.unchanged -= moved;
    }
    c.retired += Math.max(0, w.retired - (told[kind]?.retired ?? 0));
  }
  return out as Counts;
}

/**
 * The last attempt's items with what the earlier attempts wrote put back, as withEarlierWrites does
 * for the counts: an item the last attempt found unchanged takes the outcome of the first attempt that
 * wrote it, and items an earlier attempt retired are added. As they are when an earlier attempt wrote
 * more items than its log row keeps (NOTED_ITEMS): then only the counts tell its writes.
 */
function withEarlierItems(items: ItemReport[], earlier: FailedAttempt[]): ItemReport[] {
  if (earlier.some((e) => e.writes && !e.items)) return items;
  const wrote = new Map<string, ItemReport>();
  for (const e of earlier) {
    for (const it of e.items ?? []) {
      const key = `${it.kind}\u0000${it.slug}`;
      if (!wrote.has(key)) wrote.set(key, it);
    }
  }
  if (wrote.size === 0) return items;
  const out = items.map((it) => {
    const w = it.outcome === 'unchanged' ? wrote.get(`${it.kind}\u0000${it.slug}`) : undefined;
    return w && w.outcome !== 'retired' ? { ...it, outcome: w.outcome } : it;
  });
  // Retired by an earlier attempt: the last one no longer saw them (unless it told them as an earlier attempt's).
  const told = new Set(items.map((it) => `${it.kind}\u0000${it.slug}`));
  for (const [key, w] of wrote) if (w.outcome === 'retired' && !told.has(key)) out.push(w);
  return out;
}

/** The requests of every attempt, summed (undefined when none counted any). */
function allRequests(last: ReportJson['requests'], earlier: FailedAttempt[]): ReportJson['requests'] {
  const all = [last, ...earlier.map((e) => e.requests)].filter((r) => r !== undefined);
  if (all.length === 0) return undefined;
  return { total: all.reduce((n, r) => n + r.total, 0), retries: all.reduce((n, r) => n + r.retries, 0), throttled: all.reduce((n, r) => n + r.throttled, 0) };
}

/**
 * The report of a run that succeeded after failed attempts, made the whole run's (the failed
 * path's wholeRun, for a report): from the first attempt's start, the earlier attempts' writes and
 * requests counted once (src/queue/worker.ts returns it as the job's result, records it in the
 * history and counts its items in the metrics), and a warning telling each earlier attempt, which
 * the history record keeps as its note. A run that succeeded at once is returned as it is, without
 * reading the job's log. Its items are the whole run's too (withEarlierItems).
 */
export async function wholeReport(redis: Redis, job: Job, report: ReportJson): Promise<{ report: ReportJson; note?: string }> {
  if (job.attemptsMade === 0) return { report };
  const earlier = await earlierAttempts(redis, job);
  if (earlier.length === 0) return { report };
  const lastStart = Date.parse(report.run.startedAt);
  const startedAt = Math.min(lastStart, ...earlier.map((e) => e.startedAt));
  const note = `succeeded on attempt ${job.attemptsMade + 1}; earlier: ${earlierClauses(earlier)}`;
  const requests = allRequests(report.requests, earlier);
  return {
    report: {
      ...report,
      run: { ...report.run, startedAt: new Date(startedAt).toISOString(), durationMs: lastStart + (report.run.durationMs ?? 0) - startedAt },
      counts: withEarlierWrites(report.counts, earlier, earlierWritesIn(report)),
      items: withEarlierItems(report.items, earlier),
      warnings: [...report.warnings, note],
      ...(requests ? { requests } : {}),
    },
    note,
  };
}
