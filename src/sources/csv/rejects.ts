/**
 * The rejects file users download, fix and re-import: their own columns in their own delimiter,
 * plus `line` (where the row was in the original file) and `reason`. UTF-8 with a BOM so Excel
 * opens it as UTF-8; CRLF.
 *
 * Every cell is untrusted input, the header included: a cell a spreadsheet would run as a
 * formula gets a `'` in front. That is judged at the start of the cell AND at the start of every
 * line inside it, because a reader that splits a quoted multi-line cell on its line breaks (or a
 * user pasting it) sees each line as a cell of its own. (papaparse's own `escapeFormulae` looks
 * at the start of the cell only, and never at the header.)
 *
 * Ragged rows keep all their cells: the header is widened with empty names to the widest row so
 * `line` and `reason` always sit in the last two columns.
 */
export function writeRejectsCsv(rows: { raw: string[]; line: number; reason: string }[], headers: string[], delimiter: string): string {
  const width = rows.reduce((w, r) => Math.max(w, r.raw.length), headers.length);
  // One row at a time, each joined once: rendering every row's padded and escaped copy and then
  // papaparse's cell-by-cell concatenation held a file's rows many times over (a 44 MB file of 11
  // rows of 4 M empty cells, all rejected, took 3.1 GB and 55 s; test/regressions/csv-rejects-memory.test.ts).
  const out = [`\uFEFF${csvLine(headers, width, ['line', 'reason'], delimiter)}`];
  for (const r of rows) out.push(csvLine(r.raw, width, [String(r.line), r.reason], delimiter));
  return `${out.join('\r\n')}\r\n`;
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

/** What starts a formula in Excel, LibreOffice and Google Sheets (OWASP "CSV injection"). */
const FORMULA_START = /(^|[\r\n])(?=[=+\-@\t\r])/g;

/** `'` before each line of the cell that a spreadsheet would take for a formula. */
export function escapeFormula(cell: string): string {
  return cell === '' ? cell : cell.replace(FORMULA_START, "$1'");
}
