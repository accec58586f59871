// The CPU a sync worker spends per event: one queued sync (planner → page jobs → finish) run by
// the worker in this process (startWorkers, as `calsync worker` runs it) against two sandbox
// processes, its CPU time split at the planner's end: planning, and the write phase per written
// event. Steadier than the 4-vs-1 bench on a shared machine, and the process to profile:
// `node --cpu-prof --cpu-prof-dir=DIR bench/sync-worker-profile.ts [events] [latencyMs]`.
import { Queue } from 'bullmq';
import { JOBS } from '../jobs/index.ts';
import { parseConfig } from '../src/config/load.ts';
import { bullConnection } from '../src/queue/connection.ts';
import { startWorkers } from '../src/queue/worker.ts';
import type { ReportJson } from '../src/report/report.ts';
import { createLogger } from '../src/util/log.ts';
import { waitFor } from '../test/support/worker-process.ts';
import { benchRedis, PASSWORD, sandboxProcess, USER } from './env.ts';
import { seedSource } from './sync.ts';

const events = Number(process.argv[2] ?? 2000);
const latency = Number(process.argv[3] ?? 50);
const args = latency ? ['--latency-ms', String(latency)] : [];
const cpuMs = (from?: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(from);
  return (u.user + u.system) / 1000;
};

const src = await sandboxProcess(args);
const dst = await sandboxProcess(args);
const redis = await benchRedis();
process.env.SWP_PASSWORD = PASSWORD;
try {
  await seedSource(src, events);
  const config = parseConfig({
    sites: [
      { name: 'src', restRoot: src.url, auth: { user: USER, passwordEnv: 'SWP_PASSWORD' } },
      { name: 'dst', restRoot: dst.url, auth: { user: USER, passwordEnv: 'SWP_PASSWORD' }, concurrency: 8 },
    ],
    syncs: [{ name: 'bench', from: 'src', to: 'dst', languages: ['en'], window: { from: '2027-01-01', to: '2027-12-31' } }],
    worker: { concurrency: { sync: 2 } },
  });
  const prefix = `swp${Date.now()}`;
  const workers = await startWorkers({ config, redisUrl: redis.url, jobs: JOBS, log: createLogger({ level: 'warn' }), prefix, queues: ['sync'] });
  const queue = new Queue('sync', { connection: bullConnection(redis.url), prefix });
  for (const label of ['first', 'resync']) {
    const t = performance.now();
    const cpu0 = process.cpuUsage();
    const planner = await queue.add('sync-site', { sync: 'bench' });
    // Polled (20 ms) rather than awaited, to read the CPU used when the planner ends.
    const plan = await waitFor('the plan', async () => (await queue.getJob(planner.id as string))?.returnvalue as { finishJobId: string } | undefined, 600_000, 20);
    const planCpu = cpuMs(cpu0);
    const planMs = performance.now() - t;
    const cpu1 = process.cpuUsage();
    const finish = await waitFor('the finish', async () => {
      const j = await queue.getJob(plan.finishJobId);
      return j?.finishedOn ? j : undefined;
    }, 600_000, 20);
    const writeCpu = cpuMs(cpu1);
    const ms = performance.now() - t;
    const counts = (finish.returnvalue as ReportJson).counts.events;
    const written = counts.created + counts.updated;
    console.log(`${label}: ${Math.round(ms)} ms (plan ${Math.round(planMs)} ms), CPU ${Math.round(planCpu + writeCpu)} ms: plan ${Math.round(planCpu)} ms, rest ${Math.round(writeCpu)} ms` +
      `${written ? ` = ${Math.round((writeCpu * 1000) / written)} µs per written event` : ''}; ${JSON.stringify(counts)}`);
  }
  await queue.close();
  await workers.close();
} finally {
  await redis.stop();
  await src.stop();
  await dst.stop();
}
process.exit(0);
