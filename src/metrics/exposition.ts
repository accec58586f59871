import type { Queue } from 'bullmq';
import { METRIC_KEYS, parseField, type MetricsRecorder } from './recorder.ts';

const HELP: Record<string, [string, 'counter' | 'histogram' | 'gauge']> = {
  [METRIC_KEYS.jobs]: ['Jobs finished, by kind and outcome', 'counter'],
  [METRIC_KEYS.jobSeconds]: ['Job durations in seconds, by kind', 'histogram'],
  [METRIC_KEYS.items]: ['Items processed, by kind of run, item kind and outcome', 'counter'],
  [METRIC_KEYS.requests]: ['Requests sent to sites, by site, method and status', 'counter'],
  [METRIC_KEYS.retries]: ['Requests retried, by site', 'counter'],
  [METRIC_KEYS.throttled]: ['429 answers received, by site', 'counter'],
  calsync_feed_requests_total: ['Feed requests served, by feed, language and status', 'counter'],
  calsync_queue_jobs: ['Jobs in each queue by state', 'gauge'],
};

function labelText(labels: Record<string, string>): string {
  const e = Object.entries(labels);
  return e.length ? `{${e.map(([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}` : '';
}

/**
 * Prometheus text exposition of the Redis-held counters, the serve process' own feed counters,
 * and the queue depths read at scrape time.
 */
export async function renderMetrics(recorder: MetricsRecorder, queues: Queue[], local: Map<string, number>): Promise<string> {
  const series = new Map<string, string[]>();
  const add = (base: string, line: string) => {
    const list = series.get(base) ?? [];
    list.push(line);
    series.set(base, list);
  };
  for (const [field, value] of Object.entries(await recorder.read())) {
    const { name, labels } = parseField(field);
    const base = name.replace(/_(bucket|sum|count)$/, '');
    add(HELP[base] ? base : name, `${name}${labelText(labels)} ${Number(value)}`);
  }
  for (const [field, value] of local) {
    const { name, labels } = parseField(field);
    add(name, `${name}${labelText(labels)} ${value}`);
  }
  for (const q of queues) {
    const counts = await q.getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed', 'waiting-children');
    for (const [state, n] of Object.entries(counts)) add('calsync_queue_jobs', `calsync_queue_jobs{queue="${q.name}",state="${state}"} ${n}`);
  }
  let out = '';
  for (const [base, lines] of [...series.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const [help, type] = HELP[base] ?? ['calsync metric', 'counter'];
    out += `# HELP ${base} ${help}\n# TYPE ${base} ${type}\n${lines.sort().join('\n')}\n`;
  }
  return out;
}
