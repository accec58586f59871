import { DELIMITERS } from './delimiter.ts';

/**
 * The rejects file users download, fix and re-import: their own columns in their own delimiter,
 * plus `line` (where the row was in the original file) and `reason`. UTF-8 with a BOM so Excel
 * opens it as UTF-8; CRLF.
 *
 * Every cell is untrusted input, the header included: a cell a spreadsheet would run as a
 * formula gets a `'` in front. That is judged at the start of the cell AND at the start of every
 * line inside it AND after every delimiter inside it, because a reader that splits a quoted
 * multi-line cell on its line breaks (or a user pasting it), or a spreadsheet that splits the file
 * on another delimiter than ours, sees each piece as a cell of its own. (papaparse's own
 * `escapeFormulae` looks at the start of the cell only, and never at the header.)
 *
 * Ragged rows keep all their cells: the header is widened with empty names to the widest row so
 * `line` and `reason` always sit in the last two columns.
 */
export function writeRejectsCsv(
  rows: { raw: string[]; line: number; reason: string }[],
  headers: string[],
  delimiter: string,
  // A file written in parts (one a chunk, src/runs/rejects-file.ts): every part is padded to the whole
  // file's width, and only the first carries the BOM and header.
  part: { width?: number; header?: boolean } = {},
): string {
  const width = Math.max(rejectsWidth(rows), headers.length, part.width ?? 0);
  // One row at a time, each joined once: rendering every row's padded and escaped copy and then
  // papaparse's cell-by-cell concatenation held a file's rows many times over (a 44 MB file of 11
  // rows of 4 M empty cells, all rejected, took 3.1 GB and 55 s; test/regressions/csv-rejects-memory.test.ts).
  const out = part.header === false ? [] : [`\uFEFF${csvLine(headers, width, ['line', 'reason'], delimiter)}`];
  for (const r of rows) out.push(csvLine(r.raw, width, [String(r.line), r.reason], delimiter));
  return out.length === 0 ? '' : `${out.join('\r\n')}\r\n`;
}

/** The widest row's cell count: the rejects file's columns before `line` and `reason`. */
export function rejectsWidth(rows: readonly { raw: readonly string[] }[]): number {
  let width = 0;
  for (const r of rows) if (r.raw.length > width) width = r.raw.length;
  return width;
}

/** `cells` padded with empty cells to `width`, then `tail`: each formula-escaped and quoted, joined. */
function csvLine(cells: readonly string[], width: number, tail: readonly string[], delimiter: string): string {
  const out = new Array<string>(width + tail.length);
  for (let i = 0; i < width; i++) out[i] = i < cells.length ? csvCell(escapeFormula(String(cells[i])), delimiter) : '';
  for (let j = 0; j < tail.length; j++) out[width + j] = csvCell(escapeFormula(tail[j]!), delimiter);
  return out.join(delimiter);
}

/**
 * A cell quoted as papaparse's unparse quotes it (`quotes: false`): when it holds the delimiter, a
 * quote (doubled), a line break or a BOM, or begins or ends with a space.
 */
function csvCell(cell: string, delimiter: string): string {
  if (cell === '') return cell;
  const hasQuote = cell.includes('"');
  const needs = hasQuote || cell.includes(delimiter) || /[\r\n\uFEFF]/.test(cell) || cell[0] === ' ' || cell[cell.length - 1] === ' ';
  if (!needs) return cell;
  return `"${hasQuote ? cell.replace(/"/g, '""') : cell}"`;
}

/**
 * What starts a formula in Excel, LibreOffice and Google Sheets (OWASP "CSV injection"), at the
 * start of the cell, of a line in it, or after any delimiter a spreadsheet may split on (and the
 * quotes it may take for the start of a quoted field). The file is written in the user's own
 * delimiter, but the same file opened in another locale is split on another one: in a `;` file,
 * `x,=1+1` needs no quotes, and a comma-locale spreadsheet reads `=1+1` as a cell of its own. The
 * delimiters are those the import detects (src/sources/csv/delimiter.ts); a cell without a formula
 * character right after one of them is written as it was.
 */
const FORMULA_START = /(^|[\r\n])(?=[=+\-@\t\r])/g;
const SPLITS = DELIMITERS.map((d) => `\\u${d.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
const FORMULA_AFTER_SPLIT = new RegExp(`([${SPLITS}]"*)(?=[=+\\-@\\t\\r])`, 'g');

/** `'` before each piece of the cell that a spreadsheet would take for a formula. */
export function escapeFormula(cell: string): string {
  // Two passes: a tab both starts a formula and splits cells, so `\t=cmd` needs a `'` before the
  // tab (the cell's start) and one after it (the piece a tab-splitting reader makes).
  return cell === '' ? cell : cell.replace(FORMULA_START, "$1'").replace(FORMULA_AFTER_SPLIT, "$1'");
}
