/**
 * A run against a slow site keeps the configured concurrency busy: an ICS import into a sandbox
 * that adds 150 ms to every request, with the site's concurrency set to 8. Achieved concurrency
 * is measured from the client's own request hook: each finished request gives its end time and
 * duration, so its interval is known; the sum of the durations over the span from the first
 * request's start to the last one's end is the mean number of requests in flight. The same
 * intervals give the peak, and the mean over the event-write phase alone (from the first
 * event write to the last: listings and term lookups before it are partly sequential by design).
 *
 * Run alone: `npx node bench/slow-site.ts [--events=300] [--latency=150] [--concurrency=8]`.
 */
import { Redis } from 'ioredis';
import { resolveSite } from '../src/config/sites.ts';
import type { RequestInfo } from '../src/api/index.ts';
import { runIcsImport, type IcsImportParams } from '../src/runs/import-ics.ts';
import { generateIcsFeed } from '../test/support/generate-ics.ts';
import { benchRedis, PASSWORD, sandboxProcess, staticServer, USER } from './env.ts';
import { round, type Scenario } from './lib.ts';

interface Interval {
  start: number;
  end: number;
  write: boolean;
}

/** Mean in-flight count over [from, to] and the peak, from request intervals. */
export function inFlight(intervals: Interval[], from: number, to: number): { mean: number; peak: number } {
  let busy = 0;
  const edges: [number, number][] = [];
  for (const i of intervals) {
    const s = Math.max(i.start, from);
    const e = Math.min(i.end, to);
    if (e <= s) continue;
    busy += e - s;
    edges.push([s, 1], [e, -1]);
  }
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let peak = 0;
  for (const [, d] of edges) peak = Math.max(peak, (now += d));
  return { mean: to > from ? busy / (to - from) : 0, peak };
}

export async function runSlowSiteBench(opts: { events?: number; latencyMs?: number; concurrency?: number } = {}): Promise<Scenario[]> {
  const events = opts.events ?? 300;
  const latencyMs = opts.latencyMs ?? 150;
  const concurrency = opts.concurrency ?? 8;
  const sandbox = await sandboxProcess(['--latency-ms', String(latencyMs)]);
  const redisServer = await benchRedis();
  const redis = new Redis(redisServer.url);
  const ics = generateIcsFeed({ events, seed: 11, recurringShare: 0, start: new Date(Date.UTC(2025, 0, 6)) });
  const feed = await staticServer(ics);
  const intervals: Interval[] = [];
  const onRequest = (r: RequestInfo) => {
    const end = performance.now();
    intervals.push({ start: end - r.durationMs, end, write: r.method !== 'GET' && r.route.startsWith('/events') });
  };
  try {
    const base = resolveSite(sandbox.url, undefined, { env: { CALSYNC_USER: USER, CALSYNC_PASSWORD: PASSWORD } });
    const site = { ...base, concurrency, connection: { ...base.connection, onRequest } };
    const window = { from: new Date('2025-01-01T00:00:00Z'), to: new Date('2026-06-30T00:00:00Z') };
    const params: IcsImportParams = {
      location: feed.url, site, sourceKey: 'slow', lang: 'en', window, retire: 'keep', onEdit: 'overwrite', defaultTimezone: 'UTC',
      status: 'publish', createTerms: true, categoriesAs: 'categories', dryRun: false, allow: [new URL(feed.url).host], refreshAfterMs: 0,
    };
    const started = performance.now();
    const report = await runIcsImport(params, { redis });
    const wall = performance.now() - started;
    if (intervals.length === 0) throw new Error('slow-site bench: the request hook saw no request');
    const first = Math.min(...intervals.map((i) => i.start));
    const last = Math.max(...intervals.map((i) => i.end));
    const all = inFlight(intervals, first, last);
    const writes = intervals.filter((i) => i.write);
    const writePhase = writes.length ? inFlight(intervals, Math.min(...writes.map((i) => i.start)), Math.max(...writes.map((i) => i.end))) : { mean: 0, peak: 0 };
    const label = `ICS import, ${report.counts.events.created} new events, ${latencyMs} ms site, concurrency ${concurrency}`;
    return [
      { name: `${label}: wall time`, figure: round(wall / 1000, 2), unit: 's', reference: `${intervals.length} requests` },
      { name: `${label}: achieved concurrency, whole run`, figure: round(all.mean, 2), unit: 'in flight', reference: `configured ${concurrency}`, ratio: round(all.mean / concurrency, 2) },
      { name: `${label}: achieved concurrency, event writes`, figure: round(writePhase.mean, 2), unit: 'in flight', reference: `configured ${concurrency}`, ratio: round(writePhase.mean / concurrency, 2) },
      { name: `${label}: peak in flight`, figure: all.peak, unit: 'requests', reference: `configured ${concurrency}` },
    ];
  } finally {
    await feed.close();
    await redis.quit();
    await redisServer.stop();
    await sandbox.stop();
  }
}

if (import.meta.main) {
  const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  const s = await runSlowSiteBench({
    events: arg('events') ? Number(arg('events')) : undefined,
    latencyMs: arg('latency') ? Number(arg('latency')) : undefined,
    concurrency: arg('concurrency') ? Number(arg('concurrency')) : undefined,
  });
  console.log(s.map((x) => `${x.name}: ${x.figure} ${x.unit}${x.ratio !== undefined ? ` (×${x.ratio} of ${x.reference})` : x.reference ? ` (${x.reference})` : ''}`).join('\n'));
  process.exit(0);
}
