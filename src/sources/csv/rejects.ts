import Papa from 'papaparse';

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
  const pad = (cells: string[]): string[] => [...cells, ...new Array<string>(width - cells.length).fill('')];
  const data = rows.map((r) => [...pad(r.raw.map(String)), String(r.line), r.reason].map(escapeFormula));
  const csv = Papa.unparse(
    { fields: [...pad(headers), 'line', 'reason'].map(escapeFormula), data },
    { delimiter, newline: '\r\n', escapeFormulae: false, quotes: false },
  );
  return `\uFEFF${csv}\r\n`;
}

/** What starts a formula in Excel, LibreOffice and Google Sheets (OWASP "CSV injection"). */
const FORMULA_START = /(^|[\r\n])(?=[=+\-@\t\r])/g;

/** `'` before each line of the cell that a spreadsheet would take for a formula. */
export function escapeFormula(cell: string): string {
  return cell.replace(FORMULA_START, "$1'");
}
