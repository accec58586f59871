import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';

/**
 * Regression: the rejects file was rendered by copying every rejected row three times (padded,
 * stringified, formula-escaped) and then handing all of them to papaparse's unparse, which builds
 * its text one cell at a time. Cells cost nothing to send (`,` is one byte), so a CSV file of wide
 * rows cost many times its size: `calsync import csv` of a 44 MB file of 11 rows of 4 M empty
 * cells, all rejected, peaked at 3.1 GB (595 MB without --rejects) and took 55 s.
 *
 * Here 4 rows of 2 M cells are rendered in a worker thread with a 200 MB heap: the rows themselves
 * take 64 MB; before the fix rendering them needed several hundred MB more and the worker ran out of
 * memory, now one row's copy and the text are all that is added.
 */

const REJECTS = pathToFileURL(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/sources/csv/rejects.ts')).href;

const SCRIPT = `
import { parentPort } from 'node:worker_threads';
import { writeRejectsCsv } from ${JSON.stringify(REJECTS)};
const rows = Array.from({ length: 4 }, (_, i) => {
  const raw = new Array(2_000_000).fill('');
  raw[0] = '=HYPERLINK("x")';
  return { raw, line: i + 2, reason: 'Event Start Date: is empty' };
});
const text = writeRejectsCsv(rows, ['Event Name', 'Event Start Date'], ',');
parentPort.postMessage({ length: text.length, head: text.slice(0, 40), tail: text.slice(-40) });
`;

describe('regression: a rejects file of wide rows took many times the CSV file\'s size in memory', () => {
  it('4 rejected rows of 2 M cells render within a 200 MB heap', { timeout: 120_000 }, async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'calsync-rejects-mem-')), 'render.mts');
    writeFileSync(file, SCRIPT);
    const worker = new Worker(pathToFileURL(file), { resourceLimits: { maxOldGenerationSizeMb: 200, maxYoungGenerationSizeMb: 16 } });
    const result = await new Promise<{ length: number; head: string; tail: string }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`worker exited with code ${code} before answering`)));
    });
    await worker.terminate();
    // BOM + header (2M commas, then line,reason) and four rows of the same width.
    expect(result.head).toBe(`\uFEFFEvent Name,Event Start Date${','.repeat(12)}`);
    expect(result.tail.endsWith(`${','.repeat(5)}5,Event Start Date: is empty\r\n`)).toBe(true);
    expect(result.length).toBeGreaterThan(5 * 2_000_000);
  });
});
