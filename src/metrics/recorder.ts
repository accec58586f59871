import type { Redis } from 'ioredis';

/**
 * Workers run in many processes (and machines) while one `calsync serve` answers /metrics, so
 * counters are kept in Redis: each observation is one HINCRBYFLOAT on a field that encodes the
 * metric name and its labels. Fire-and-forget: metrics never slow down or fail a job.
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

export class MetricsRecorder {
  readonly redis: Redis;
  readonly key: string;
  constructor(redis: Redis, prefix = 'calsync') {
    this.redis = redis;
    this.key = `${prefix}:metrics`;
  }
  inc(name: string, labels: Record<string, string | number>, by = 1): void {
    if (by === 0) return;
    this.redis.hincrbyfloat(this.key, fieldOf(name, labels), by).catch(() => undefined);
  }
  /** A histogram observation: cumulative buckets, sum and count. */
  observe(name: string, labels: Record<string, string | number>, seconds: number): void {
    const multi = this.redis.multi();
    for (const le of DURATION_BUCKETS) if (seconds <= le) multi.hincrbyfloat(this.key, fieldOf(`${name}_bucket`, { ...labels, le }), 1);
    multi.hincrbyfloat(this.key, fieldOf(`${name}_bucket`, { ...labels, le: '+Inf' }), 1);
    multi.hincrbyfloat(this.key, fieldOf(`${name}_sum`, labels), seconds);
    multi.hincrbyfloat(this.key, fieldOf(`${name}_count`, labels), 1);
    multi.exec().catch(() => undefined);
  }
  async read(): Promise<Record<string, string>> {
    return this.redis.hgetall(this.key);
  }
}
