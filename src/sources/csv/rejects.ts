import Papa from 'papaparse';

/**
 * The rejects file users download, fix and re-import: their own columns in their own delimiter,
 * plus `line` (where the row was in the original file) and `reason`. UTF-8 with a BOM so Excel
 * opens it as UTF-8; CRLF; cells that a spreadsheet would run as a formula (= + - @ tab CR) are
 * prefixed with `'` (papaparse escapeFormulae), since the cells are untrusted input.
 *
 * Ragged rows keep all their cells: the header is widened with empty names to the widest row so
 * `line` and `reason` always sit in the last two columns.
 */
export function writeRejectsCsv(rows: { raw: string[]; line: number; reason: string }[], headers: string[], delimiter: string): string {
  const width = rows.reduce((w, r) => Math.max(w, r.raw.length), headers.length);
  const pad = (cells: string[]): string[] => [...cells, ...new Array<string>(width - cells.length).fill('')];
  const data = rows.map((r) => [...pad(r.raw.map(String)), String(r.line), r.reason]);
  const csv = Papa.unparse(
    { fields: [...pad(headers), 'line', 'reason'], data },
    { delimiter, newline: '\r\n', escapeFormulae: true, quotes: false },
  );
  return `\uFEFF${csv}\r\n`;
}
