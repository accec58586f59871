import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import { writeEventsCsv } from '../test/support/generate-csv.ts';
import { bullConnection } from '../src/queue/connection.ts';
import { spawnWorker, waitForFinish, writeConfig } from '../test/support/worker-process.ts';
import { benchRedis, PASSWORD, sandboxProcess, USER } from './env.ts';
import { inChild, round, type Scenario } from './lib.ts';

/** End-to-end CSV flow into a sandbox with `workers` worker processes; returns rows/s and the run's wall time. */
export async function csvFlowRate(opts: { rows: number; workers: number; latencyMs?: number; requestsPerSecond?: number }): Promise<{ rowsPerSec: number; ms: number; requests: number }> {
  const sandbox = await sandboxProcess(opts.latencyMs ? ['--latency-ms', String(opts.latencyMs)] : []);
  const redis = await benchRedis();
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'calsync-bench-')), 'flow.csv');
  await writeEventsCsv(file, { rows: opts.rows, seed: 9 });
  const prefix = `bench${Date.now()}`;
  const config = writeConfig({
    sites: [{ name: 'sb', restRoot: sandbox.url, auth: { user: USER, passwordEnv: 'SB_PASSWORD' }, concurrency: 8, ...(opts.requestsPerSecond ? { requestsPerSecond: opts.requestsPerSecond } : {}) }],
    sources: [{ name: 'flow', kind: 'csv', site: 'sb', url: file, chunkSize: 250 }],
    worker: { concurrency: { import: 2 } },
  });
  const workers = Array.from({ length: opts.workers }, () => spawnWorker({ config, redisUrl: redis.url, prefix, env: { SB_PASSWORD: PASSWORD } }));
  const queue = new Queue('import', { connection: bullConnection(redis.url), prefix });
  try {
    await new Promise((r) => setTimeout(r, 1500)); // let the worker processes start
    await sandbox.resetStats();
    const t = performance.now();
    const planner = await queue.add('import-csv', { source: 'flow' });
    const finish = await waitForFinish(queue, planner, 600_000, 50);
    const ms = performance.now() - t;
    const created = (finish.returnvalue as { counts: { events: { created: number } } }).counts.events.created;
    if (created !== opts.rows) throw new Error(`flow created ${created} of ${opts.rows} rows`);
    return { rowsPerSec: round(opts.rows / (ms / 1000), 0), ms, requests: (await sandbox.stats()).total };
  } finally {
    await Promise.all(workers.map((w) => w.kill('SIGTERM')));
    await queue.close();
    await redis.stop();
    await sandbox.stop();
  }
}

/** Validate+normalize only (no site, no Redis): rows/s and peak RSS at two sizes, each in its own process. */
export async function runCsvReadBench(opts: { small?: number; large?: number } = {}): Promise<Scenario[]> {
  const small = opts.small ?? 10_000;
  const large = opts.large ?? 100_000;
  const dir = mkdtempSync(path.join(tmpdir(), 'calsync-bench-'));
  const read = async (rows: number) => {
    const file = path.join(dir, `rows-${rows}.csv`);
    await writeEventsCsv(file, { rows, seed: 5 }); // here, not in the measured process
    return inChild<{ rowsPerSec: number; cpuUsPerRow: number; rss: number }>('./csv-read-child.ts', [String(rows), file]);
  };
  const a = await read(small);
  const b = await read(large);
  return [
    { name: `CSV validate+normalize, ${small / 1000}k rows`, figure: a.rowsPerSec, unit: 'rows/s' },
    { name: `CSV validate+normalize, ${large / 1000}k rows`, figure: b.rowsPerSec, unit: 'rows/s', reference: `${small / 1000}k rows`, ratio: round(b.rowsPerSec / a.rowsPerSec, 2) },
    {
      name: `CSV validate+normalize, ${large / 1000}k rows: CPU per row`,
      figure: b.cpuUsPerRow,
      unit: 'µs',
      reference: `wall ${round(1e6 / b.rowsPerSec, 1)} µs/row (ratio: cores busy); ${small / 1000}k rows ${a.cpuUsPerRow} µs CPU/row`,
      ratio: round((b.cpuUsPerRow * b.rowsPerSec) / 1e6, 2),
    },
    { name: `CSV read peak RSS, ${large / 1000}k rows`, figure: b.rss, unit: 'MiB', reference: `${small / 1000}k rows: ${a.rss} MiB`, ratio: round(b.rss / a.rss, 2) },
  ];
}

export async function runImportCsvBench(opts: { small?: number; large?: number; flowRows?: number } = {}): Promise<Scenario[]> {
  const out = await runCsvReadBench(opts);
  const rows = opts.flowRows ?? 5000;
  const one = await csvFlowRate({ rows, workers: 1 });
  const four = await csvFlowRate({ rows, workers: 4 });
  out.push({ name: `CSV flow end-to-end, ${rows} rows, 1 worker process`, figure: one.rowsPerSec, unit: 'rows/s' });
  out.push({ name: `CSV flow end-to-end, ${rows} rows, 4 worker processes`, figure: four.rowsPerSec, unit: 'rows/s', reference: '1 worker process', ratio: round(four.rowsPerSec / one.rowsPerSec, 2) });
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const s = await runImportCsvBench();
  console.log(s.map((x) => `${x.name}: ${x.figure} ${x.unit}${x.ratio !== undefined ? ` (×${x.ratio} of ${x.reference})` : ''}`).join('\n'));
}
