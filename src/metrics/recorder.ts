import type { Redis } from 'ioredis';
import { memoizedBy } from '../util/memo.ts';

/**
 * Workers run in many processes (and machines) while one `calsync serve` answers /metrics, so
 * counters are kept in Redis: each field encodes the metric name and its labels, and moves by
 * HINCRBYFLOAT. Fire-and-forget: metrics never slow down or fail a job.
 */
export const METRIC_KEYS = {
  jobs: 'calsync_jobs_total',
  jobSeconds: 'calsync_job_duration_seconds',
  items: 'calsync_items_total',
  requests: 'calsync_site_requests_total',
  retries: 'calsync_site_retries_total',
  throttled: 'calsync_site_throttled_total',
} as const;

export const DURATION_BUCKETS = [0.1, 0.5, 1, 5, 15, 60, 300, 1800];

export function fieldOf(name: string, labels: Record<string, string | number>): string {
  const l = Object.entries(labels)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => `${k}=${String(v).replace(/[|,=]/g, '_')}`)
    .join(',');
  return `${name}|${l}`;
}

export function parseField(field: string): { name: string; labels: Record<string, string> } {
  const [name, rest = ''] = field.split('|');
  const labels: Record<string, string> = {};
  for (const pair of rest.split(',').filter(Boolean)) {
    const [k, v = ''] = pair.split('=');
    labels[k as string] = v;
  }
  return { name: name as string, labels };
}

/**
 * fieldOf, remembered: a worker counts the same few fields (site, method, status) for every
 * request. Remembered by the name and the labels as given, joined by NULs (see MetricsRecorder.field).
 */
const fieldByKey = memoizedBy((f: { key: string; name: string; labels: Record<string, string | number> }) => f.key, (f) => fieldOf(f.name, f.labels), 1024, 400);

/** How long increments wait in the process before one flush sends them to Redis. */
const FLUSH_MS = 1000;

export class MetricsRecorder {
  readonly redis: Redis;
  readonly key: string;
  private readonly flushMs: number;
  /** Increments not sent yet, by field: a field counted many times is sent once, as its sum. */
  private pending = new Map<string, number>();
  private timer?: NodeJS.Timeout;

  /**
   * `flushMs`: increments are summed in the process and sent together, at most this long later
   * (and by `flush()`, which a worker calls as it shuts down). One HINCRBYFLOAT per request was a
   * Redis write of its own per site request: an eighth of a sync worker's CPU (bench/sync.ts).
   */
  constructor(redis: Redis, prefix = 'calsync', opts: { flushMs?: number } = {}) {
    this.redis = redis;
    this.key = `${prefix}:metrics`;
    this.flushMs = opts.flushMs ?? FLUSH_MS;
  }

  inc(name: string, labels: Record<string, string | number>, by = 1): void {
    if (by === 0) return;
    this.add(this.field(name, labels), by);
  }

  private field(name: string, labels: Record<string, string | number>): string {
    let key = name;
    // A NUL inside a name or label would let two fields share a key: such a field is built directly.
    let nul = name.includes('\0');
    for (const k in labels) {
      const v = String(labels[k]);
      key += `\0${k}\0${v}`;
      nul ||= k.includes('\0') || v.includes('\0');
    }
    return nul ? fieldOf(name, labels) : fieldByKey({ key, name, labels });
  }

  /** A histogram observation: cumulative buckets, sum and count. */
  observe(name: string, labels: Record<string, string | number>, seconds: number): void {
    for (const le of DURATION_BUCKETS) if (seconds <= le) this.add(this.field(`${name}_bucket`, { ...labels, le }), 1);
    this.add(this.field(`${name}_bucket`, { ...labels, le: '+Inf' }), 1);
    this.add(this.field(`${name}_sum`, labels), seconds);
    this.add(this.field(`${name}_count`, labels), 1);
  }

  private add(field: string, by: number): void {
    this.pending.set(field, (this.pending.get(field) ?? 0) + by);
    this.timer ??= setTimeout(() => void this.flush(), this.flushMs).unref();
  }

  /**
   * Sends what was counted since the last flush, in one transaction (a histogram's buckets, sum
   * and count move together). Fire-and-forget as before: metrics never slow down or fail a job.
   */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    const multi = this.redis.multi();
    for (const [field, by] of batch) multi.hincrbyfloat(this.key, field, by);
    await multi.exec().catch(() => undefined);
  }

  async read(): Promise<Record<string, string>> {
    return this.redis.hgetall(this.key);
  }
}
