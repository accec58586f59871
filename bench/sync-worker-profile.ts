// The CPU a sync worker spends per event: one queued sync (sync-site → sync-plan adding page jobs
// → finish) run by the worker in this process (startWorkers, as `calsync worker` runs it) against
// two sandbox processes, its CPU time split at the planner's (sync-plan's) end: planning with the
// pages written meanwhile, and the rest per written event. Steadier than the 4-vs-1 bench on a shared machine, and the process to profile:
// `node --cpu-prof --cpu-prof-dir=DIR bench/sync-worker-profile.ts [events] [latencyMs]`.
import { Queue } from 'bullmq';
import { JOBS } from '../jobs/index.ts';
import { parseConfig } from '../src/config/load.ts';
import { bullConnection } from '../src/queue/connection.ts';
import { startWorkers } from '../src/queue/worker.ts';
import type { ReportJson } from '../src/report/report.ts';
import { createLogger } from '../src/util/log.ts';
import { waitForFinish } from '../test/support/worker-process.ts';
import { benchRedis, PASSWORD, sandboxProcess } from './env.ts';
import { seedSource, syncBenchConfig } from './sync.ts';

const events = Number(process.argv[2] ?? 2000);
const latency = Number(process.argv[3] ?? 50);
const args = latency ? ['--latency-ms', String(latency)] : [];
const cpuMs = (to: NodeJS.CpuUsage, from: NodeJS.CpuUsage) => (to.user - from.user + to.system - from.system) / 1000;

const src = await sandboxProcess(args);
const dst = await sandboxProcess(args);
const redis = await benchRedis();
process.env.SWP_PASSWORD = PASSWORD;
try {
  await seedSource(src, events);
  const config = parseConfig(syncBenchConfig(src.url, dst.url, 'SWP_PASSWORD'));
  const prefix = `swp${Date.now()}`;
  const workers = await startWorkers({ config, redisUrl: redis.url, jobs: JOBS, log: createLogger({ level: 'warn' }), prefix, queues: ['sync'] });
  const queue = new Queue('sync', { connection: bullConnection(redis.url), prefix });
  // The CPU used when the planner ends, read as this process's worker completes it (polling the
  // queue from this process would add its own Redis round trips to the figure).
  let planEnd: { at: number; cpu: NodeJS.CpuUsage; mark: bigint } | undefined;
  for (const w of workers.workers) w.on('completed', (job) => {
    if (job.name === 'sync-plan') planEnd = { at: performance.now(), cpu: process.cpuUsage(), mark: process.hrtime.bigint() / 1000n };
  });
  for (const label of ['first', 'resync']) {
    planEnd = undefined;
    const t = performance.now();
    const cpu0 = process.cpuUsage();
    const planner = await queue.add('sync-site', { sync: 'bench' });
    const finish = await waitForFinish(queue, planner, 600_000, 500);
    const end = process.cpuUsage();
    const ms = performance.now() - t;
    const split = planEnd as { at: number; cpu: NodeJS.CpuUsage; mark: bigint } | undefined;
    if (!split) throw new Error('the planner completed without this process seeing it');
    const planCpu = cpuMs(split.cpu, cpu0);
    const writeCpu = cpuMs(end, split.cpu);
    const counts = (finish.returnvalue as ReportJson).counts.events;
    const written = counts.created + counts.updated;
    const sys = (end.system - split.cpu.system) / 1000;
    console.log(`${label}: ${Math.round(ms)} ms (plan ${Math.round(split.at - t)} ms), CPU ${Math.round(planCpu + writeCpu)} ms: plan ${Math.round(planCpu)} ms, rest ${Math.round(writeCpu)} ms (system ${Math.round(sys)} ms)` +
      `${written ? ` = ${Math.round((writeCpu * 1000) / written)} µs per written event` : ''}; ${JSON.stringify(counts)}`);
    // The write phase on the monotonic clock in µs, the clock of a .cpuprofile's sample times.
    if (process.env.SWP_MARKS) console.log(`${label} write phase (monotonic µs): ${split.mark} ${process.hrtime.bigint() / 1000n}`);
  }
  await queue.close();
  await workers.close();
} finally {
  await redis.stop();
  await src.stop();
  await dst.stop();
}
process.exit(0);
