// Child process of the CSV bench: validate+normalize a generated file of N rows, report rows/s
// and this process' peak RSS (streaming: it should barely grow with N). The parent passes the file
// it generated, so the peak RSS is the reader's alone (generating 100k rows in this process grew
// V8's young generation before the first row was read); run alone, it generates the file itself.
import { mkdtempSync, createReadStream } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeEventsCsv } from '../test/support/generate-csv.ts';
import { inspectCsv, readCsvBatches, type CsvOptions } from '../src/sources/csv/index.ts';
import { peakRssMiB, round } from './lib.ts';

const rows = Number(process.argv[2] ?? 10_000);
let file = process.argv[3];
if (!file) {
  file = path.join(mkdtempSync(path.join(tmpdir(), 'calsync-bench-')), 'rows.csv');
  await writeEventsCsv(file, { rows, seed: 5 });
}
const open = () => createReadStream(file);
const opts: CsvOptions = { kind: 'events', sourceKey: 'bench', sourceName: 'rows.csv', defaultTimezone: 'UTC' };
const cpu0 = process.cpuUsage();
const t = performance.now();
const inspection = await inspectCsv(open, opts);
let ok = 0;
// As src/runs/import-csv.ts reads them: a parsed chunk's items at a time.
for await (const items of readCsvBatches(open, opts, inspection)) for (const item of items) if (item.result.ok) ok++;
const ms = performance.now() - t;
const cpu = process.cpuUsage(cpu0);
// CPU per row (this process' user + system time, GC and compiler threads included): on a shared
// machine it moves far less than rows/s with the load other processes put on the cores.
const cpuUsPerRow = round((cpu.user + cpu.system) / rows, 2);
console.log(JSON.stringify({ rows, ok, ms: round(ms, 0), rowsPerSec: round(rows / (ms / 1000), 0), cpuUsPerRow, rss: peakRssMiB() }));
