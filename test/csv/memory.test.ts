import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BAD_KINDS, badRowCount, generateEventsCsv, GENERATED_HEADERS, writeEventsCsv } from '../support/generate-csv.ts';
import { inspectCsv, readCsv, type CsvInspection } from '../../src/sources/csv/index.ts';
import { countLineBreaks } from '../../src/sources/csv/parse.ts';
import { opts } from './helpers.ts';

/**
 * Streaming, proven: reading 100k rows holds no more heap than reading 10k (after GC, sampled as
 * items arrive), and items arrive while most of the file is still unread.
 */

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

let dir: string;
const files: Record<number, string> = {};

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'calsync-csv-'));
  for (const rows of [10_000, 100_000]) {
    files[rows] = path.join(dir, `events-${rows}.csv`);
    await writeEventsCsv(files[rows], { rows, seed: 42, bad: true });
  }
}, 120_000);

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

interface Run {
  items: number;
  drafts: number;
  failures: Map<string, number>;
  peakRetained: number;
  ms: number;
  inspection: CsvInspection;
  linesOk: boolean;
}

async function run(rows: number): Promise<Run> {
  const open = () => fs.createReadStream(files[rows]!);
  const o = opts({ sourceName: path.basename(files[rows]!) });
  const inspection = await inspectCsv(open, o);
  gc();
  const base = process.memoryUsage().heapUsed;
  let peak = 0;
  let items = 0;
  let drafts = 0;
  const failures = new Map<string, number>();
  let expectedLine = 2;
  let linesOk = true;
  const t0 = performance.now();
  for await (const item of readCsv(open, o, inspection)) {
    items++;
    if (item.line !== expectedLine) linesOk = false;
    expectedLine = item.line + 1 + countLineBreaks(item.raw);
    if (item.result.ok) drafts++;
    else {
      const kind = item.result.failure.reason.split(':')[0]!;
      failures.set(kind, (failures.get(kind) ?? 0) + 1);
    }
    if (items % 5000 === 0) {
      gc(); // retained heap only: garbage between collections says nothing about streaming
      peak = Math.max(peak, process.memoryUsage().heapUsed - base);
    }
  }
  return { items, drafts, failures, peakRetained: peak, ms: performance.now() - t0, inspection, linesOk };
}

describe('streaming a generated 100k-row file', () => {
  it('every row accounted for, bad rows failing for their reason, physical lines continuous', async () => {
    const r = await run(10_000);
    expect(r.inspection).toMatchObject({ rows: 10_000, dateFormat: 'MM/DD/YYYY', encoding: 'utf-8', unmapped: [] });
    expect(r.inspection.headers).toEqual(GENERATED_HEADERS);
    expect(r.items).toBe(10_000);
    expect(r.drafts + [...r.failures.values()].reduce((a, b) => a + b, 0)).toBe(10_000);
    expect(r.drafts).toBe(10_000 - badRowCount(10_000));
    // One of each kind in the first 5 thousand-blocks, then round again.
    expect(Object.fromEntries(r.failures)).toEqual({ 'Event Start Date': 2, 'All Day Event': 2, row: 2, 'Event Time Zone': 2, 'Event Name': 2 });
    expect(BAD_KINDS).toHaveLength(5);
    expect(r.linesOk).toBe(true);
  });

  it('heap stays flat from 10k to 100k rows', async () => {
    const small = await run(10_000);
    const large = await run(100_000);
    expect(large.items).toBe(100_000);
    expect(large.drafts).toBe(100_000 - 100);
    const file = fs.statSync(files[100_000]!).size;
    console.log(
      `csv memory: 10k rows peak retained ${(small.peakRetained / 1e6).toFixed(1)} MB in ${small.ms.toFixed(0)} ms; ` +
        `100k rows (${(file / 1e6).toFixed(1)} MB file) peak retained ${(large.peakRetained / 1e6).toFixed(1)} MB in ${large.ms.toFixed(0)} ms`,
    );
    // Holding the rows would retain far more than the file itself; only the duplicate table
    // (~24 bytes a row) may grow. Loose bounds: flat within 3x + a few MB, and well under the file.
    expect(large.peakRetained).toBeLessThan(Math.max(small.peakRetained, 1e6) * 3 + 4e6);
    expect(large.peakRetained).toBeLessThan(file / 3);
  }, 120_000);

  it('items arrive before the stream ends', async () => {
    const size = fs.statSync(files[100_000]!).size;
    const o = opts();
    const inspection = await inspectCsv(() => fs.createReadStream(files[100_000]!), o);
    let bytesRead = 0;
    let ended = false;
    const open = () => {
      const s = fs.createReadStream(files[100_000]!);
      s.on('data', (chunk) => (bytesRead += chunk.length));
      s.on('end', () => (ended = true));
      return s;
    };
    let atFirst = -1;
    let seen = 0;
    for await (const _ of readCsv(open, o, inspection)) {
      if (atFirst < 0) {
        atFirst = bytesRead;
        expect(ended).toBe(false);
      }
      if (++seen === 1000) break; // leaving early tears the file stream down
    }
    expect(atFirst).toBeGreaterThan(0);
    expect(atFirst).toBeLessThan(size / 50);
    expect(bytesRead).toBeLessThan(size / 10);
    expect(ended).toBe(false);
  }, 120_000);
});

describe('generator', () => {
  it('is deterministic for a seed and streams bytes', async () => {
    const text = async (seed: number) => {
      const chunks: Buffer[] = [];
      for await (const c of generateEventsCsv({ rows: 300, seed })) chunks.push(c as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    };
    const a = await text(7);
    expect(await text(7)).toBe(a);
    expect(await text(8)).not.toBe(a);
    expect(a.split('\n')[0]).toBe(GENERATED_HEADERS.join(','));
    expect(generateEventsCsv({ rows: 1 })).toBeInstanceOf(Readable);
  });
});
