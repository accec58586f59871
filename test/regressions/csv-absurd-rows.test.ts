import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCsvImport } from '../../src/runs/import-csv.ts';
import { MAX_ROW_FIELDS } from '../../src/sources/csv/normalize.ts';
import { testSite } from '../support/site.ts';

/**
 * Regression (attacker review): a CSV row of 45 M fields (a 90 MB line of commas) took 1.2 GB, and
 * 3.2 GB with --rejects: the row's cells were kept whole in its item, in the run's rejected rows
 * (an inline run kept every rejected row's cells until its end, rejects file or not) and in the
 * rejects file, where every rejected row was padded to 45 M columns (135 MB for 3 rows). A row
 * wider than any spreadsheet is now a failed row naming its line, with only its first header-width
 * cells kept, and an inline run spools rejected rows to disk only when a rejects file was asked for.
 */

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CSV = pathToFileURL(path.resolve(HERE, '../../src/sources/csv/index.ts')).href;

// 24 rows of 500,000 fields each (12 MB): kept whole, their cells alone (8 bytes a pointer) are
// 96 MB, past the worker's 64 MB heap; bounded, the heap holds about one row at a time.
const SCRIPT = `
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { parentPort, workerData } from 'node:worker_threads';
import { inspectCsv, readCsv, writeRejectsCsv } from ${JSON.stringify(CSV)};
const bytes = readFileSync(workerData.file);
const open = () => Readable.from([bytes]);
const o = { kind: 'events', sourceKey: 'wide', sourceName: 'wide.csv' };
const inspection = await inspectCsv(open, o);
// What a run keeps of its rejected rows, for the rejects file.
const rejects = [];
for await (const item of readCsv(open, o, inspection)) {
  if (!item.result.ok) rejects.push({ line: item.line, raw: item.raw, reason: item.result.failure.reason });
}
const text = writeRejectsCsv(rejects, inspection.headers, inspection.delimiter);
parentPort.postMessage({ rejects: rejects.length, widest: Math.max(...rejects.map((r) => r.raw.length)), first: rejects[0].reason, bytes: text.length });
`;

describe('regression: a CSV row of 45 M fields took 1.2 GB (3.2 GB with --rejects)', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  let dir: string;
  beforeAll(async () => {
    env = await testSite();
    dir = mkdtempSync(path.join(tmpdir(), 'calsync-absurd-rows-'));
  });
  afterAll(async () => {
    await env.close();
  });

  it('24 rows of 500,000 fields are failed rows with bounded cells, within a 64 MB heap', { timeout: 60_000 }, async () => {
    const file = path.join(dir, 'wide.csv');
    const wide = `x${','.repeat(500_000)}tail`;
    writeFileSync(file, ['Event Name,Event Start Date,Event End Date', ...Array.from({ length: 24 }, () => wide), ''].join('\r\n'));
    const script = path.join(dir, 'read.mts');
    writeFileSync(script, SCRIPT);
    const worker = new Worker(pathToFileURL(script), { workerData: { file }, resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 } });
    const result = await new Promise<{ rejects: number; widest: number; first: string; bytes: number }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`worker exited with code ${code} before answering`)));
    });
    await worker.terminate();
    expect(result.rejects).toBe(24);
    expect(result.widest).toBe(3);
    expect(result.first).toBe(`row: has 500001 fields, more than ${MAX_ROW_FIELDS} (no spreadsheet has more columns); only its first 3 are kept`);
    expect(result.bytes).toBeLessThan(10_000);
  });

  it('an inline run: the wide row is a failed item naming its line; the rejects file is written from the spool, which is gone', async () => {
    const file = path.join(dir, 'events.csv');
    writeFileSync(file, ['Event Name,Event Start Date,Event End Date', 'Good,2031-05-01 10:00,2031-05-01 11:00', `x${','.repeat(MAX_ROW_FIELDS + 10)}`, 'Bad,2031-13-01,', 'Ragged,2031-05-02 10:00,2031-05-02 11:00,extra', ''].join('\r\n'));
    const rejectsPath = path.join(dir, 'out', 'rejects.csv');
    const r = await runCsvImport({ location: file, site: env.site, kind: 'events', sourceKey: 'absurd', lang: 'en', status: 'publish', createTerms: true, dryRun: true, chunkSize: 2, allowFiles: true, rejectsPath });
    const failed = r.items.filter((i) => i.outcome === 'failed');
    expect(failed.map((i) => i.origin?.line)).toEqual([3, 4, 5]);
    expect(failed[0]?.reason).toMatch(/^row: has 16395 fields, more than 16384/);
    expect(r.rejectsFile).toBe(rejectsPath);
    const rows = Papa.parse<string[]>(readFileSync(rejectsPath, 'utf8').slice(1), { skipEmptyLines: true }).data;
    expect(rows.map((row) => row.length)).toEqual([6, 6, 6, 6]);
    expect(rows.map((row) => row[4])).toEqual(['line', '3', '4', '5']);
    expect(readdirSync(path.dirname(rejectsPath))).toEqual(['rejects.csv']);
  });

  it('no rejects file asked for: the failed row is reported, no file written', async () => {
    const file = path.join(dir, 'bad.csv');
    writeFileSync(file, ['Event Name,Event Start Date,Event End Date', 'Bad,2031-13-01,', ''].join('\r\n'));
    const r = await runCsvImport({ location: file, site: env.site, kind: 'events', sourceKey: 'absurd-none', lang: 'en', status: 'publish', createTerms: true, dryRun: true, chunkSize: 2, allowFiles: true });
    expect(r.counts.events.failed).toBe(1);
    expect(r.rejectsFile).toBeUndefined();
  });
});
