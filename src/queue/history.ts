import type { Redis } from 'ioredis';
import { z } from 'zod';
import { reportExitCode, type ReportJson } from '../report/report.ts';
import { redactText } from '../util/redact.ts';

export const RunRecord = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.string(),
  status: z.enum(['ok', 'partial', 'failed', 'paused']),
  startedAt: z.string(),
  durationMs: z.number(),
  counts: z.record(z.string(), z.record(z.string(), z.number())).optional(),
  failures: z.array(z.object({ kind: z.string(), slug: z.string().optional(), ref: z.string().optional(), reason: z.string() })).default([]),
  error: z.string().optional(),
  jobId: z.string().optional(),
});
export type RunRecord = z.infer<typeof RunRecord>;

const MAX_FAILURES_KEPT = 100;

/**
 * Run history per source/export/sync (last N reports) and auto-pause: a source failing N runs in
 * a row is paused, with its last error kept, until `calsync resume <name>`.
 */
export class RunHistory {
  readonly redis: Redis;
  readonly prefix: string;
  readonly keep: number;
  readonly pauseAfter: number;
  constructor(redis: Redis, opts: { prefix?: string; keep?: number; pauseAfterFailures?: number } = {}) {
    this.redis = redis;
    this.prefix = opts.prefix ?? 'calsync';
    this.keep = opts.keep ?? 50;
    this.pauseAfter = opts.pauseAfterFailures ?? 5;
  }
  private k(kind: string, name: string) {
    return `${this.prefix}:${kind}:${name}`;
  }

  static fromReport(name: string, report: ReportJson, jobId?: string): RunRecord {
    const failures = report.items
      .filter((i) => i.outcome === 'failed')
      .slice(0, MAX_FAILURES_KEPT)
      .map((i) => ({ kind: i.kind, slug: i.slug, ref: i.origin ? `${i.origin.source}${i.origin.line !== undefined ? `:${i.origin.line}` : i.origin.uid ? ` UID ${i.origin.uid}` : ''}` : undefined, reason: i.reason ?? '' }));
    return {
      id: report.run.id,
      name,
      kind: report.run.kind,
      status: reportExitCode(report) === 2 ? 'partial' : 'ok',
      startedAt: report.run.startedAt,
      durationMs: report.run.durationMs ?? 0,
      counts: report.counts as RunRecord['counts'],
      failures,
      jobId,
    };
  }

  async record(raw: RunRecord): Promise<{ paused: boolean }> {
    // `calsync runs` shows what is stored here: feed URLs without userinfo or query values.
    const rec: RunRecord = { ...raw, error: raw.error === undefined ? undefined : redactText(raw.error), failures: raw.failures.map((f) => ({ ...f, reason: redactText(f.reason) })) };
    const multi = this.redis.multi().lpush(this.k('runs', rec.name), JSON.stringify(rec)).ltrim(this.k('runs', rec.name), 0, this.keep - 1);
    if (rec.status === 'failed') multi.incr(this.k('failstreak', rec.name));
    else multi.del(this.k('failstreak', rec.name));
    const res = await multi.exec();
    if (rec.status !== 'failed') return { paused: false };
    const streak = Number(res?.[2]?.[1] ?? 0);
    if (streak >= this.pauseAfter) {
      await this.redis.set(this.k('paused', rec.name), JSON.stringify({ since: new Date().toISOString(), failures: streak, lastError: rec.error ?? 'unknown error' }));
      return { paused: true };
    }
    return { paused: false };
  }

  async list(name?: string, limit = 20): Promise<RunRecord[]> {
    const names = name ? [name] : await this.names();
    const out: RunRecord[] = [];
    for (const n of names) {
      for (const raw of await this.redis.lrange(this.k('runs', n), 0, limit - 1)) out.push(RunRecord.parse(JSON.parse(raw)));
    }
    return out.sort((a, b) => (a.startedAt < b.startedAt ? 1 : -1)).slice(0, name ? limit : limit * Math.max(1, names.length));
  }

  async names(): Promise<string[]> {
    const found = new Set<string>();
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', `${this.prefix}:runs:*`, 'COUNT', 500);
      cursor = next;
      for (const k of keys) found.add(k.slice(`${this.prefix}:runs:`.length));
    } while (cursor !== '0');
    return [...found].sort();
  }

  async paused(name: string): Promise<{ since: string; failures: number; lastError: string } | undefined> {
    const raw = await this.redis.get(this.k('paused', name));
    return raw ? JSON.parse(raw) : undefined;
  }

  async resume(name: string): Promise<boolean> {
    const n = await this.redis.del(this.k('paused', name), this.k('failstreak', name));
    return n > 0;
  }
}
