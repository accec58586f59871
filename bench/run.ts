// `npm run bench` — every scenario, one table; `npm run bench -- --json` prints
// {"machine": {...}, "scenarios": [{name, figure, unit, reference, ratio}]} instead.
// Ratios compare figures measured in this same run (the machines are shared and noisy).
import { runApiBench } from './api.ts';
import { runExportBench } from './export-ics.ts';
import { runCsvReadBench, runImportCsvBench, csvFlowRate } from './import-csv.ts';
import { runImportIcsBench } from './import-ics.ts';
import { runRealSiteBench } from './real-site.ts';
import { runSlowSiteBench } from './slow-site.ts';
import { runSyncBench } from './sync.ts';
import { machine, printTable, round, type Scenario } from './lib.ts';

const json = process.argv.includes('--json');
const only = process.argv.find((a) => a.startsWith('--only='))?.slice(7).split(',');
const log = (m: string) => process.stderr.write(`${m}\n`);

async function workersUnderLatency(): Promise<Scenario[]> {
  const limit = 150;
  const one = await csvFlowRate({ rows: 1000, workers: 1, latencyMs: 150, requestsPerSecond: limit });
  const four = await csvFlowRate({ rows: 1000, workers: 4, latencyMs: 150, requestsPerSecond: limit });
  const rate = (r: { requests: number; ms: number }) => round(r.requests / (r.ms / 1000), 1);
  return [
    { name: 'CSV flow, 1000 rows, 150 ms-latency site, 1 worker process', figure: one.rowsPerSec, unit: 'rows/s' },
    { name: 'CSV flow, 1000 rows, 150 ms-latency site, 4 worker processes', figure: four.rowsPerSec, unit: 'rows/s', reference: '1 worker process', ratio: round(four.rowsPerSec / one.rowsPerSec, 2) },
    { name: `site request rate with 4 workers (limit ${limit}/s across all workers)`, figure: rate(four), unit: 'req/s', reference: `limit ${limit}`, ratio: round(rate(four) / limit, 2) },
  ];
}

const SUITES: [string, () => Promise<Scenario[]>][] = [
  ['api', async () => (await runApiBench()).scenarios as Scenario[]],
  ['import-ics', () => runImportIcsBench()],
  ['import-csv', () => runImportCsvBench()],
  ['export-ics', async () => (await runExportBench()).scenarios as Scenario[]],
  ['sync', () => runSyncBench()],
  ['workers', () => workersUnderLatency()],
  ['slow-site', () => runSlowSiteBench()],
  ['real-site', () => runRealSiteBench()],
];

// Subsets of a suite above, run only when named: `--only=csv-read` (CSV validate+normalize figures without the flows).
// `--only=sync-50ms`: the sync's 50 ms part alone (4 workers vs 1), without the 10k-event 0 ms part.
const PARTS: [string, () => Promise<Scenario[]>][] = [
  ['csv-read', () => runCsvReadBench()],
  ['sync-50ms', () => runSyncBench({ parts: ['slow'] })],
];

const scenarios: Scenario[] = [];
const started = Date.now();
for (const [name, run] of [...SUITES, ...PARTS.filter(([n]) => only?.includes(n))]) {
  if (only && !only.includes(name)) continue;
  log(`bench: ${name}…`);
  const t = Date.now();
  scenarios.push(...(await run()));
  log(`bench: ${name} done in ${round((Date.now() - t) / 1000, 1)} s`);
}
if (json) process.stdout.write(`${JSON.stringify({ machine: machine(), scenarios }, null, 2)}\n`);
else {
  const m = machine();
  process.stdout.write(`${printTable(scenarios)}\n\nmachine: ${m.cpus} × ${m.cpu}, ${m.memoryGiB} GiB, ${m.platform}, Node ${m.node}, ${m.date}; total ${round((Date.now() - started) / 1000, 0)} s\n`);
}
process.exit(0);
