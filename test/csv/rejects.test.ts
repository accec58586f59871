import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { writeRejectsCsv } from '../../src/sources/csv/index.ts';
import { bytesOpen, collect, corpusOpen, opts } from './helpers.ts';

describe('rejects CSV', () => {
  it('UTF-8 BOM, the input delimiter, CRLF, line and reason columns, formulas escaped', () => {
    const out = writeRejectsCsv(
      [
        { raw: ['=HYPERLINK("http://evil")', '2024-13-01', 'Zürich; "quoted"'], line: 7, reason: "Start Date: '2024-13-01' is not a real date (no month 13)" },
        { raw: ['+1', '-2', '@x'], line: 9, reason: 'row: whatever' },
      ],
      ['Title', 'Start Date', 'Venue'],
      ';',
    );
    expect(out.startsWith('\uFEFF')).toBe(true);
    const lines = out.slice(1).split('\r\n');
    expect(lines[0]).toBe('Title;Start Date;Venue;line;reason');
    const parsed = Papa.parse<string[]>(out.slice(1), { delimiter: ';', newline: '\r\n', skipEmptyLines: true }).data;
    expect(parsed[1]).toEqual([`'=HYPERLINK("http://evil")`, '2024-13-01', 'Zürich; "quoted"', '7', "Start Date: '2024-13-01' is not a real date (no month 13)"]);
    expect(parsed[2]).toEqual(["'+1", "'-2", "'@x", '9', 'row: whatever']);
  });

  it('ragged rows keep all their cells: the header is widened so line/reason stay last', () => {
    const out = writeRejectsCsv(
      [
        { raw: ['a', 'b', 'c', 'extra'], line: 2, reason: 'row: has 4 fields, the header has 3' },
        { raw: ['a'], line: 3, reason: 'row: has 1 fields, the header has 3' },
      ],
      ['A', 'B', 'C'],
      ',',
    );
    const rows = Papa.parse<string[]>(out.slice(1), { skipEmptyLines: true }).data;
    expect(rows[0]).toEqual(['A', 'B', 'C', '', 'line', 'reason']);
    expect(rows[1]).toEqual(['a', 'b', 'c', 'extra', '2', 'row: has 4 fields, the header has 3']);
    expect(rows[2]).toEqual(['a', '', '', '', '3', 'row: has 1 fields, the header has 3']);
  });

  it('round trip: the failures of a corpus file, written out and read back, are the same rows', async () => {
    const name = 'massport-cruise-schedule-excel-title-row-crlf.csv';
    const mapping = { Vessel: 'title', Date: 'start_date', ETA: 'start_time', ETD: 'end_time', Berth: 'venue' };
    const c = await collect(corpusOpen(name), opts({ sourceName: name, mapping }));
    const rejects = c.failures.map((f) => ({ raw: f.raw as string[], line: f.origin.line!, reason: f.reason }));
    const out = writeRejectsCsv(rejects, c.inspection.headers, c.inspection.delimiter);
    // Re-import the rejects file as a user would after fixing nothing: same header (the title row
    // is gone), the two new columns unmapped, the same failures on the same cells.
    const again = await collect(bytesOpen(out), opts({ sourceName: 'rejects.csv', mapping }));
    expect(again.inspection.encoding).toBe('utf-8');
    expect(again.inspection.unmapped).toEqual(expect.arrayContaining(['line', 'reason']));
    expect(again.failures.map((f) => f.reason)).toEqual(["ETD: 'RON' is not a time", "ETA: 'RON' is not a time"]);
    expect(again.items.map((i) => i.raw.slice(0, 16))).toEqual(rejects.map((r) => r.raw));
    expect(again.items.map((i) => i.raw.slice(16))).toEqual([
      ['62', "ETD: 'RON' is not a time"],
      ['64', "ETA: 'RON' is not a time"],
    ]);
  });

  it('regression: formula escaping missed multi-line cells and header cells ("=1+1\\nsecond line" written unescaped)', () => {
    const out = writeRejectsCsv(
      [{ raw: ['=1+1\nsecond line', 'first line\n=HYPERLINK("http://evil")', 'ok\r\n@SUM(A1)', '\t=cmd', 'plain-text'], line: 4, reason: "Title: '+2' is not a date\n-3" }],
      ['=cmd|\'/C calc\'!A0', 'Notes\n+1', 'C', 'D', 'E'],
      ',',
    );
    const rows = Papa.parse<string[]>(out.slice(1), { skipEmptyLines: true }).data;
    expect(rows[0]).toEqual(["'=cmd|'/C calc'!A0", "Notes\n'+1", 'C', 'D', 'E', 'line', 'reason']);
    // `\t=cmd` gets a `'` after the tab too: a tab-splitting reader makes `=cmd` a cell of its own
    // (test/regressions/csv-rejects-delimiters-and-width.test.ts).
    expect(rows[1]).toEqual(["'=1+1\nsecond line", 'first line\n\'=HYPERLINK("http://evil")', "ok\r\n'@SUM(A1)", "'\t'=cmd", 'plain-text', '4', "Title: '+2' is not a date\n'-3"]);
    // Whatever reader splits the file, no line of any cell starts a formula.
    for (const line of out.slice(1).split(/\r\n|\r|\n/)) {
      for (const cell of line.split(',')) expect(cell.replace(/^"/, '')).not.toMatch(/^[=+\-@\t]/);
    }
  });
});
