import { Queue } from 'bullmq';
import { CalendarClient } from '../src/api/index.ts';
import { bullConnection } from '../src/queue/connection.ts';
import { resolveSite } from '../src/config/sites.ts';
import type { ReportJson } from '../src/report/report.ts';
import { mapConcurrent } from '../src/util/pool.ts';
import { spawnWorker, waitFor, waitForFinish, writeConfig } from '../test/support/worker-process.ts';
import { benchRedis, PASSWORD, sandboxProcess, USER, type SandboxProcess } from './env.ts';
import { cpuSeconds, cpuShares, formatShares } from './cpu-share.ts';
import { round, type Scenario } from './lib.ts';

const ENV = { CALSYNC_USER: USER, CALSYNC_PASSWORD: PASSWORD };

/** The source site of every sync bench: `events` events sharing one venue and one category. */
export async function seedSource(src: SandboxProcess, events: number): Promise<void> {
  const client = new CalendarClient({ ...resolveSite(src.url, undefined, { env: ENV }).connection, connections: 32 });
  const venue = await client.venues.create({ venue: 'Bench Hall', city: 'Springfield' } as never);
  const cat = await client.categories.create({ name: 'Bench' });
  await mapConcurrent(Array.from({ length: events }, (_, i) => i), 32, (i) => {
    const d = new Date(Date.UTC(2027, 0, 1 + (i % 360))).toISOString().slice(0, 10);
    return client.events.create({ title: `Bench ${i}`, start_date: `${d} 10:00:00`, end_date: `${d} 11:00:00`, timezone: 'Europe/Berlin', slug: `bench-${i}`, venue: venue.id, categories: [cat.id] } as never);
  });
  await client.close();
}

/**
 * The page jobs of a run: how long each took, and how many ran at once on average over the
 * write phase (sum of their durations / first start to last finish), against how many the
 * workers offer (`worker.concurrency.sync` per process).
 */
async function pageJobs(queue: Queue, plans: Queue, plannerId: string) {
  // The run's jobs are named `sync-<planner id>-…` (jobs/sync-payload.ts): matched by that prefix,
  // not by the id anywhere in the name, which also matched other runs' pages (`sync-1-en-page-2`).
  const ofRun = (id: string | undefined) => String(id).startsWith(`sync-${plannerId.replace(/[^A-Za-z0-9_-]/g, '-')}-`);
  const jobs = (await queue.getJobs(['completed'], 0, -1)).filter((j) => j.name === 'sync-page' && ofRun(j.id));
  const spans = jobs.map((j) => ({ from: j.processedOn ?? 0, to: j.finishedOn ?? 0 }));
  const busy = spans.reduce((s, x) => s + (x.to - x.from), 0);
  const wall = spans.length ? Math.max(...spans.map((x) => x.to)) - Math.min(...spans.map((x) => x.from)) : 0;
  // The planners (sync-plan) have a queue of their own (src/queue/names.ts COMPANIONS).
  const all = [...(await queue.getJobs(['completed'], 0, -1)), ...(await plans.getJobs(['completed'], 0, -1))];
  const planner = all.find((j) => j.id === plannerId);
  const t0 = planner?.timestamp ?? 0;
  const at = (n?: number) => (n ? n - t0 : undefined);
  const timeline = Object.fromEntries(all.filter((j) => j.name !== 'sync-page' && (j.id === plannerId || ofRun(j.id))).map((j) => [j.name, [at(j.processedOn), at(j.finishedOn)]]));
  timeline.pages = [Math.min(...spans.map((x) => x.from)) - t0, Math.max(...spans.map((x) => x.to)) - t0];
  return { count: jobs.length, meanMs: jobs.length ? busy / jobs.length : 0, writeWallMs: wall, inParallel: wall ? busy / wall : 0, timeline };
}

/**
 * The queued sync (planner → page jobs → finish) with `workers` worker processes into an empty
 * target, then a no-change resync: events/s of the first run (enqueue to report) and the resync's
 * time and writes.
 */
/**
 * The bench's sync, from `src` to `dst` (its password in env `passwordEnv`): also profiled by bench/sync-worker-profile.ts.
 * With `warm`, a second sync `warm` copies the source's first `warm.days` days into another site, run before the clock starts.
 */
export function syncBenchConfig(src: string, dst: string, passwordEnv: string, warm?: { site: string; days: number }) {
  const site = (name: string, restRoot: string) => ({ name, restRoot, auth: { user: USER, passwordEnv }, concurrency: 8 });
  const warmTo = warm ? new Date(Date.UTC(2027, 0, warm.days)).toISOString().slice(0, 10) : '';
  return {
    sites: [{ name: 'src', restRoot: src, auth: { user: USER, passwordEnv } }, site('dst', dst), ...(warm ? [site('warm', warm.site)] : [])],
    syncs: [
      { name: 'bench', from: 'src', to: 'dst', languages: ['en'], window: { from: '2027-01-01', to: '2027-12-31' } },
      ...(warm ? [{ name: 'warm', from: 'src', to: 'warm', languages: ['en'], window: { from: '2027-01-01', to: warmTo } }] : []),
    ],
    worker: { concurrency: { sync: 2 } },
  };
}

/**
 * `calsync worker` is a long-running process, but the bench starts fresh ones: a process's first sync
 * pays its lazy compilation and JIT warm-up (measured at 0.25–0.55 CPU s per process, about 40% of a
 * process's share of the 2000-event run), four times over with four processes. A warm-up sync of
 * about WARM_EVENTS events (enough page jobs for every worker slot) into another site runs first,
 * so the timed runs measure the workers as they serve; its own time is reported beside them.
 */
const WARM_EVENTS = 400;

async function syncFlow(src: SandboxProcess, events: number, workers: number, latencyMs: number) {
  const dst = await sandboxProcess(latencyMs ? ['--latency-ms', String(latencyMs)] : []);
  const warmSite = await sandboxProcess();
  const redis = await benchRedis();
  const prefix = `bench${Date.now()}`;
  const warm = { site: warmSite.url, days: Math.max(1, Math.ceil((WARM_EVENTS * 360) / events)) };
  const config = writeConfig(syncBenchConfig(src.url, dst.url, 'SB_PASSWORD', warm));
  const procs = Array.from({ length: workers }, () => spawnWorker({ config, redisUrl: redis.url, prefix, env: { SB_PASSWORD: PASSWORD }, args: ['--queues', 'sync'] }));
  const queue = new Queue('sync', { connection: bullConnection(redis.url), prefix });
  const plans = new Queue('sync-plan', { connection: bullConnection(redis.url), prefix });
  const run = async (sync = 'bench') => {
    const t = performance.now();
    const planner = await queue.add('sync-site', { sync });
    const finish = await waitForFinish(queue, planner, 600_000, 20);
    const pages = await pageJobs(queue, plans, planner.id as string);
    // Planning: from the sites' check (sync-site) to the end of the source's reading (sync-plan),
    // during which the first pages are already being written.
    const planMs = (pages.timeline['sync-plan']?.[1] ?? 0) - (pages.timeline['sync-site']?.[0] ?? 0);
    return { ms: performance.now() - t, planMs, pages, report: finish.returnvalue as ReportJson };
  };
  try {
    // Every worker process listening before the clock starts: 4 Node processes take seconds to
    // start on 2 cores, and a fixed pause let the 4-worker figure include that start-up.
    await waitFor('the worker processes', async () => (await queue.getWorkersCount()) >= workers, 60_000, 100);
    const warmUp = await run('warm');
    await dst.resetStats();
    const cpu = cpuShares({ workers: procs.map((w) => w.child.pid), 'target site': [dst.child.pid], 'source site': [src.child.pid], redis: [redis.process.pid], bench: [process.pid] });
    const first = await run();
    const firstCpu = cpu();
    const firstStats = await dst.stats();
    const firstRequests = firstStats.total;
    if (first.report.counts.events.created !== events) throw new Error(`first sync created ${first.report.counts.events.created}/${events}: ${JSON.stringify(first.report.counts.events)}`);
    await dst.resetStats();
    const again = await run();
    if (process.env.BENCH_SYNC_DEBUG) console.error(JSON.stringify({ workers, pages: first.pages, resyncPages: again.pages, targetRoutes: firstStats.byRoute }));
    return { warmMs: warmUp.ms, warmEvents: warmUp.report.counts.events.created, first: events / (first.ms / 1000), firstMs: first.ms, firstPlanMs: first.planMs, targetRate: firstRequests / (first.ms / 1000), resyncMs: again.ms, resyncWrites: (await dst.stats()).writes, pages: first.pages, cpu: firstCpu };
  } finally {
    await Promise.all(procs.map((w) => w.kill('SIGTERM')));
    await queue.close();
    await plans.close();
    await redis.stop();
    await Promise.all([dst.stop(), warmSite.stop()]);
  }
}

type FlowRun = Awaited<ReturnType<typeof syncFlow>>;

/**
 * How much of each run only the planner could do (enqueue to the first page job's start), and the
 * best 4-vs-1 ratio the machine allows: all our processes (workers, both sites, Redis) needed
 * `cpuSeconds` for the 4-worker run, so on `cores` cores it cannot take less than that / cores,
 * even with the whole machine to itself; the 1-worker time is as measured.
 */
function overlapAndBound(at: string, one: FlowRun, four: FlowRun): Scenario[] {
  const firstPage = (r: FlowRun) => (r.pages.timeline.pages?.[0] ?? 0) / 1000;
  const planEnd = (r: FlowRun) => (r.pages.timeline['sync-plan']?.[1] ?? 0) / 1000;
  const need = cpuSeconds(four.cpu);
  const floor = need / four.cpu.cores;
  return [
    { name: `sync first run, ${at}: first page job started / planner ended (s after enqueue), 4 workers`, figure: round(firstPage(four), 2), unit: 's', reference: `planner ended ${round(planEnd(four), 2)} s; 1 worker ${round(firstPage(one), 2)} / ${round(planEnd(one), 2)} s` },
    { name: `sync first run, ${at}: CPU seconds all our processes needed, 4 workers`, figure: round(need, 1), unit: 'CPU s', reference: `1 worker ${round(cpuSeconds(one.cpu), 1)} CPU s`, ratio: round(need / cpuSeconds(one.cpu), 2) },
    { name: `sync first run, ${at}: 4-vs-1 ceiling had the 4-worker run all ${four.cpu.cores} cores (1-worker time as measured / (4-worker CPU s / cores))`, figure: round(one.firstMs / 1000 / floor, 2), unit: '×', reference: `4 workers no faster than ${round(floor, 1)} s; measured ${round(four.firstMs / 1000, 1)} s` },
  ];
}

async function atLatency(events: number, latencyMs: number) {
  const src = await sandboxProcess(latencyMs ? ['--latency-ms', String(latencyMs)] : []);
  try {
    await seedSource(src, events);
    return { one: await syncFlow(src, events, 1, latencyMs), four: await syncFlow(src, events, 4, latencyMs) };
  } finally {
    await src.stop();
  }
}

/**
 * `parts`: `fast` (10k events, 0 ms), `slow` (2000 events, 50 ms: the 4-workers-vs-1 goal), or
 * both; `npm run bench -- --only=sync-50ms` runs the slow part alone.
 */
export async function runSyncBench(opts: { events?: number; slowEvents?: number; parts?: ('fast' | 'slow')[] } = {}): Promise<Scenario[]> {
  const n = opts.events ?? 10_000;
  const slow = opts.slowEvents ?? 2000;
  const parts = opts.parts ?? ['fast', 'slow'];
  const runs = [...(parts.includes('fast') ? [[n, 0] as const] : []), ...(parts.includes('slow') ? [[slow, 50] as const] : [])];
  const out: Scenario[] = [];
  for (const [events, latency] of runs) {
    const { one, four } = await atLatency(events, latency);
    const at = `${events} events, ${latency} ms sandboxes`;
    out.push(
      { name: `sync warm-up before the clock (each worker process's first sync: ${four.warmEvents} events into another 0 ms site), 4 workers`, figure: round(four.warmMs / 1000, 2), unit: 's', reference: `1 worker ${round(one.warmMs / 1000, 2)} s` },
      { name: `sync first run, ${at}, 1 worker`, figure: round(one.first, 0), unit: 'events/s' },
      { name: `sync first run, ${at}, 1 worker: planning (sites checked to source read whole; pages written meanwhile)`, figure: round(one.firstPlanMs / 1000, 2), unit: 's', reference: `whole run ${round(one.firstMs / 1000, 1)} s`, ratio: round(one.firstPlanMs / one.firstMs, 2) },
      { name: `sync first run, ${at}, 4 workers`, figure: round(four.first, 0), unit: 'events/s', reference: '1 worker', ratio: round(four.first / one.first, 2) },
      { name: `sync first run, ${at}: requests/s the target served (1 / 4 workers)`, figure: round(four.targetRate, 0), unit: 'req/s', reference: `1 worker ${round(one.targetRate, 0)} req/s`, ratio: round(four.targetRate / one.targetRate, 2) },
      { name: `sync first run, ${at}: write phase (first page job start to last end), 4 workers`, figure: round(four.pages.writeWallMs / 1000, 2), unit: 's', reference: `1 worker ${round(one.pages.writeWallMs / 1000, 2)} s`, ratio: round(one.pages.writeWallMs / four.pages.writeWallMs, 2) },
      { name: `sync first run, ${at}: page jobs running at once (4 / 1 workers)`, figure: round(four.pages.inParallel, 1), unit: 'jobs', reference: `1 worker ${round(one.pages.inParallel, 1)}`, ratio: round(four.pages.inParallel / one.pages.inParallel, 2) },
      { name: `sync first run, ${at}, 1 worker: CPU cores used`, figure: round(one.cpu.machine, 2), unit: 'cores busy (machine)', reference: formatShares(one.cpu) },
      { name: `sync first run, ${at}, 4 workers: CPU cores used`, figure: round(four.cpu.machine, 2), unit: 'cores busy (machine)', reference: formatShares(four.cpu) },
      ...overlapAndBound(at, one, four),
      { name: `sync no-change resync, ${at}, 1 worker`, figure: round(one.resyncMs / 1000, 2), unit: 's', reference: `first run ${round(one.firstMs / 1000, 1)} s`, ratio: round(one.resyncMs / one.firstMs, 3) },
      { name: `sync no-change resync, ${at}, 4 workers`, figure: round(four.resyncMs / 1000, 2), unit: 's', reference: `first run ${round(four.firstMs / 1000, 1)} s`, ratio: round(four.resyncMs / four.firstMs, 3) },
      { name: `sync no-change resync, ${at}: writes (1 / 4 workers)`, figure: one.resyncWrites + four.resyncWrites, unit: 'writes' },
    );
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  // `node bench/sync.ts --slow` (or `--fast`): one part only.
  const only = (['fast', 'slow'] as const).filter((x) => process.argv.includes(`--${x}`));
  const s = await runSyncBench(only.length ? { parts: [...only] } : {});
  console.log(s.map((x) => `${x.name}: ${x.figure} ${x.unit}${x.ratio !== undefined ? ` (×${x.ratio} of ${x.reference})` : ''}`).join('\n'));
}
