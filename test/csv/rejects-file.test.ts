import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { assembleRejects, spoolChunkRejects } from '../../jobs/csv-rejects.ts';
import { RejectsFile, type RejectRow } from '../../src/runs/rejects-file.ts';
import { DELIMITERS } from '../../src/sources/csv/delimiter.ts';
import { writeRejectsCsv } from '../../src/sources/csv/index.ts';
import { prng } from '../../src/util/random.ts';

/**
 * The inline run and the queued run write their rejects file through one module
 * (src/runs/rejects-file.ts). Differential check: whichever way the rows arrive (chunk by chunk in
 * file order, parts spooled out of order by chunk jobs, chunks with no part that the finish job
 * fills in), the file is byte for byte what writeRejectsCsv makes of all the rows at once, which
 * is what both paths wrote before they shared the module.
 */

const CELLS = ['', 'plain', 'two words', ' padded ', 'x,=1+1', 'a;+2', 'b\t-3', '=cmd', 'Tom "TJ" Jones', 'multi\nline', 'ünïcødé', '\uFEFFbom'];

/** Chunks of rejected rows in file order, each row with 0 to 8 cells (ragged), some chunks empty. */
function chunksOf(rnd: () => number, n: number): RejectRow[][] {
  let line = 2;
  return Array.from({ length: n }, () => {
    const rows: RejectRow[] = [];
    const count = rnd() < 0.3 ? 0 : 1 + Math.floor(rnd() * 6);
    for (let i = 0; i < count; i++) {
      line += 1 + Math.floor(rnd() * 3);
      const raw = Array.from({ length: Math.floor(rnd() * 9) }, () => CELLS[Math.floor(rnd() * CELLS.length)]!);
      rows.push({ line, raw, reason: `reason ${line}: ${CELLS[Math.floor(rnd() * CELLS.length)]}` });
    }
    // A chunk's processor lists its failures in its own order; the file is in line order.
    return rows.reverse();
  });
}

const oneShot = (chunks: RejectRow[][], headers: string[], delimiter: string) =>
  writeRejectsCsv(chunks.flat().sort((a, b) => a.line - b.line), headers, delimiter);

describe('rejects file: the inline and the queued run write the same bytes as one writeRejectsCsv of all rows', () => {
  const cases = DELIMITERS.flatMap((delimiter, d) => [1, 2, 3].map((k) => ({ delimiter, seed: 100 * d + k })));

  it.each(cases)('delimiter $delimiter, seed $seed', async ({ delimiter, seed }) => {
    const rnd = prng(seed);
    const chunks = chunksOf(rnd, 1 + Math.floor(rnd() * 7));
    const headers = ['Title', 'Start', 'End'].slice(0, 1 + Math.floor(rnd() * 3));
    const expected = oneShot(chunks, headers, delimiter);
    const dir = mkdtempSync(path.join(tmpdir(), 'calsync-rejects-file-'));

    // Inline: each chunk spooled as it ends, in file order.
    const inline = new RejectsFile(path.join(dir, 'inline', 'rejects.csv'));
    for (const [i, rows] of chunks.entries()) await inline.spool(i, structuredClone(rows));
    const inlineFile = await inline.write(chunks.length, { headers, delimiter });

    // Queued: chunk jobs finish in any order, and one chunk that failed every attempt has no part.
    const lost = chunks.findIndex((rows) => rows.length > 0);
    const order = chunks.map((_, i) => i).sort(() => rnd() - 0.5);
    for (const i of order) if (i !== lost) await spoolChunkRejects(dir, 'run', i, structuredClone(chunks[i]!));
    const queuedFile = await assembleRejects(dir, 'run', chunks.length, { headers, delimiter }, async (i) => (i === lost ? structuredClone(chunks[i]!) : []));

    if (chunks.flat().length === 0) {
      expect([inlineFile, queuedFile]).toEqual([undefined, undefined]);
      expect(existsSync(path.join(dir, 'inline'))).toBe(false);
      return;
    }
    expect(readFileSync(inlineFile!, 'utf8')).toBe(expected);
    expect(readFileSync(queuedFile!, 'utf8')).toBe(expected);
    // The parts are gone; only the files are left.
    expect(readdirSync(path.join(dir, 'inline'))).toEqual(['rejects.csv']);
    expect(readdirSync(path.join(dir, 'rejects'))).toEqual(['run.csv']);
  });

  it('no row rejected: no file, and the parts folder is removed', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'calsync-rejects-file-'));
    const r = new RejectsFile(path.join(dir, 'rejects.csv'));
    await r.spool(0, []);
    expect(await r.write(1, { headers: ['A'], delimiter: ',' })).toBeUndefined();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a part spooled before parts recorded their width (the rows alone) is still read', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'calsync-rejects-file-'));
    const rows: RejectRow[] = [{ line: 4, raw: ['b', 'c', 'd'], reason: 'old part' }];
    mkdirSync(path.join(dir, 'rejects', 'run.parts'), { recursive: true });
    writeFileSync(path.join(dir, 'rejects', 'run.parts', 'chunk-0.json'), JSON.stringify(rows));
    const file = await assembleRejects(dir, 'run', 1, { headers: ['A'], delimiter: ',' }, async () => []);
    expect(readFileSync(file!, 'utf8')).toBe(writeRejectsCsv(rows, ['A'], ','));
  });
});
