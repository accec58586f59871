import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { assembleRejects, spoolChunkRejects } from '../../jobs/csv-rejects.ts';
import { writeRejectsCsv } from '../../src/sources/csv/index.ts';
import { DELIMITERS } from '../../src/sources/csv/delimiter.ts';

const FORMULA = /^[=+\-@\t\r]/;

/** Every piece a spreadsheet may make of the file: each line split on each delimiter, leading quotes dropped. */
function pieces(text: string): string[] {
  const out: string[] = [];
  for (const line of text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/)) {
    for (const d of DELIMITERS) for (const piece of line.split(d)) out.push(piece.replace(/^"+/, ''));
  }
  return out;
}

describe('regression: rejects CSV formula escaping held for the file\'s own delimiter only', () => {
  // In a `;` file `x,=1+1` needs no quotes; a spreadsheet in a comma locale splits it and runs `=1+1`.
  const hostile = ['x,=1+1', 'a;+2', 'b\t-3', 'c|@SUM(A1)', 'd,"=HYPERLINK(""http://evil"")"', 'e,,=1', 'f\t\t=1', '\t=cmd'];

  it.each(DELIMITERS.map((d) => [JSON.stringify(d), d]))('a file written with %s: no piece on any delimiter starts a formula', (_name, delimiter) => {
    const out = writeRejectsCsv([{ raw: hostile, line: 3, reason: 'Start: x,=2 is not a date' }], ['Title', 'x;=H', 'C', 'D', 'E', 'F', 'G', 'H'], delimiter);
    for (const piece of pieces(out)) expect(piece).not.toMatch(FORMULA);
    // Read back in its own delimiter, each hostile cell is the original with `'` in front of the formula.
    const rows = Papa.parse<string[]>(out.slice(1), { delimiter, newline: '\r\n', skipEmptyLines: true }).data;
    expect(rows[1]!.slice(0, 4)).toEqual(["x,'=1+1", "a;'+2", "b\t'-3", "c|'@SUM(A1)"]);
  });

  it('ordinary cells are written byte for byte as before (delimiters not followed by a formula character)', () => {
    const ordinary = ['Jazz, blues; soul', 'Rock|Pop', '10-12', 'info@venue.example', '2024-05-01', 'Tom "TJ" Jones', 'Prices: 5, -10% for members'];
    const out = writeRejectsCsv([{ raw: ordinary, line: 2, reason: 'Start Date: is empty' }], ['A', 'B', 'C', 'D', 'E', 'F', 'G'], ';');
    expect(out).toBe('\uFEFFA;B;C;D;E;F;G;line;reason\r\n"Jazz, blues; soul";Rock|Pop;10-12;info@venue.example;2024-05-01;"Tom ""TJ"" Jones";Prices: 5, -10% for members;2;Start Date: is empty\r\n');
  });
});

describe('regression: queued rejects assembly padded each chunk to its own widest row', () => {
  it('a wider later chunk keeps line and reason under their header columns', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'calsync-rejects-width-'));
    const headers = ['Title', 'Start'];
    await spoolChunkRejects(dir, 'run-1', 0, [{ raw: ['a', ''], line: 2, reason: 'Start: is empty' }]);
    await spoolChunkRejects(dir, 'run-1', 1, [{ raw: ['b', '', 'x', 'y', 'z'], line: 60, reason: 'row: has 5 fields, the header has 2' }]);
    const file = await assembleRejects(dir, 'run-1', 3, { headers, delimiter: ',' }, async (i) => (i === 2 ? [{ raw: ['c', 'd', 'e', 'f'], line: 120, reason: 'chunk 2 failed' }] : []));
    const rows = Papa.parse<string[]>(readFileSync(file!, 'utf8').slice(1), { skipEmptyLines: true }).data;
    expect(rows).toEqual([
      ['Title', 'Start', '', '', '', 'line', 'reason'],
      ['a', '', '', '', '', '2', 'Start: is empty'],
      ['b', '', 'x', 'y', 'z', '60', 'row: has 5 fields, the header has 2'],
      ['c', 'd', 'e', 'f', '', '120', 'chunk 2 failed'],
    ]);
  });
});
