import { UnknownEncoding } from './decode.ts';
import { DateEvidence } from './date-evidence.ts';
import { numericDateParts, parseDateFormat, parseDateTime, type DateOrder } from './dates.ts';
import { CsvRefusedError } from './errors.ts';
import { looksLikeHtmlPage } from '../html-page.ts';
import { FIELDS, REQUIRED } from './fields.ts';
import { headerHits, listColumns, planColumns, resolveColumn, type ColumnPlan } from './headers.ts';
import { isBlank, openRecords, type RawRecord, type RecordStream } from './parse.ts';
import { parseStatus } from './status.ts';
import type { CsvInspection, CsvOptions } from './types.ts';
import { parseZone } from './zones.ts';

/**
 * The pre-scan pass: streams the whole file once, holding only counters, and decides everything a
 * row cannot decide alone: encoding, delimiter, which line is the header (skipping an Excel title
 * row), the column mapping, and the day/month order of numeric dates, which is only knowable from
 * the WHOLE file ("05/03/13" means nothing until some other row says "05/24/13").
 *
 * Refuses (CsvRefusedError) what would otherwise import wrong data: no header and no mapping by
 * position, required fields unmapped, a mapping naming a missing column or an unknown field,
 * numeric dates that are ambiguous across the whole file or that contradict each other.
 */

const MAP_HINT = 'map the columns with --map mapping.json, e.g. {"Name": "title", "Date": "start_date"}';

export interface CheckedOptions {
  order?: DateOrder;
  defaultTimezone: string;
  status?: string;
}

/** Option checks shared by both passes; problems are whole-file refusals. */
export function checkOptions(opts: CsvOptions): CheckedOptions {
  const file = opts.sourceName;
  if (!(opts.kind in FIELDS)) throw new CsvRefusedError(file, `unknown kind '${String(opts.kind)}'`, 'use events, venues or organizers');
  let order: DateOrder | undefined;
  if (opts.dateFormat) {
    order = parseDateFormat(opts.dateFormat);
    if (!order) {
      throw new CsvRefusedError(file, `unknown date format '${opts.dateFormat}'`, 'use e.g. DD/MM/YYYY, MM/DD/YYYY, D.M.YYYY, YYYY/MM/DD, DD-MM-YY');
    }
  }
  const zone = parseZone(opts.defaultTimezone ?? 'UTC');
  if (!zone.ok || !zone.value) {
    throw new CsvRefusedError(file, `default time zone: ${zone.ok ? 'empty' : zone.reason}`, 'give an IANA name with --default-tz, e.g. Europe/Paris');
  }
  let status: string | undefined;
  if (opts.status) {
    const s = parseStatus(opts.status);
    if (!s.ok || !s.value.status) throw new CsvRefusedError(file, `status '${opts.status}' is not a post status`, 'use publish, draft, pending, private or future');
    status = s.value.status;
  }
  if (opts.delimiter && ![',', ';', '\t', '|', 'auto'].includes(opts.delimiter)) {
    throw new CsvRefusedError(file, `unsupported delimiter ${JSON.stringify(opts.delimiter)}`, 'use , ; tab | or auto');
  }
  return { ...(order ? { order } : {}), defaultTimezone: zone.value, ...(status ? { status } : {}) };
}

export async function openChecked(open: () => NodeJS.ReadableStream, opts: CsvOptions, dialect: { encoding?: string; delimiter?: string; newline?: CsvInspection['newline'] }): Promise<RecordStream> {
  try {
    return await openRecords(open(), dialect);
  } catch (error) {
    if (error instanceof UnknownEncoding) {
      throw new CsvRefusedError(opts.sourceName, `unknown encoding '${error.encoding}'`, 'give one with --encoding, e.g. utf-8, windows-1252, iso-8859-1, utf-16le');
    }
    throw error;
  }
}

function nonEmpty(fields: string[]): number {
  return fields.filter((f) => f.trim() !== '').length;
}

/** A row holding dates is data, not a header: no header cell parses as a date. */
function looksLikeData(fields: string[]): boolean {
  return fields.some((f) => f.trim() !== '' && (parseDateTime(f, 'MDY').ok || numericDateParts(f) !== undefined));
}

function preview(fields: string[]): string {
  const cells = fields.map((f) => f.trim()).filter(Boolean);
  const shown = cells.slice(0, 8).map((c) => (c.length > 40 ? `${c.slice(0, 37)}...` : c));
  return shown.join(', ') + (cells.length > 8 ? ', ...' : '');
}

/** Reads past blank records, counting them (only those below the header end up reported). */
class NonBlank {
  blankLines = 0;
  private readonly batches: AsyncGenerator<RawRecord[], void, undefined>;
  /** The batch being read and the position in it (records come a parsed chunk at a time). */
  private batch: RawRecord[] = [];
  private at = 0;
  constructor(batches: AsyncGenerator<RawRecord[], void, undefined>) {
    this.batches = batches;
  }
  /** The next record, blank or not; undefined at the end. */
  private async any(): Promise<RawRecord | undefined> {
    while (this.at >= this.batch.length) {
      const next = await this.batches.next();
      if (next.done) return undefined;
      this.batch = next.value;
      this.at = 0;
    }
    return this.batch[this.at++];
  }
  async next(): Promise<RawRecord | undefined> {
    for (;;) {
      const rec = await this.any();
      if (!rec) return undefined;
      if (!isBlank(rec.fields)) return rec;
      this.blankLines++;
    }
  }
  /** Every record not read yet, counting blank ones and handing the others to `scan` (one await per chunk). */
  async scanRest(scan: RowScan): Promise<void> {
    for (;;) {
      for (; this.at < this.batch.length; this.at++) {
        const rec = this.batch[this.at]!;
        if (isBlank(rec.fields)) this.blankLines++;
        else scan.scan(rec);
      }
      const next = await this.batches.next();
      if (next.done) return;
      this.batch = next.value;
      this.at = 0;
    }
  }
}

interface HeaderChoice {
  /** undefined: a header-less file, mapped by position. */
  header: RawRecord | undefined;
  /** Data records already read. */
  pending: RawRecord[];
  /** An Excel title row above the header. */
  skippedLines: number[];
}

/** Which of the first two non-blank records is the header (or none); refuses a file with none it can use. */
function chooseHeader(opts: CsvOptions, first: RawRecord, second: RawRecord | undefined): HeaderChoice {
  const userMapping = opts.mapping ?? {};
  const rest = second ? [second] : [];
  if (headerHits(opts.kind, first.fields, userMapping) > 0) return { header: first, pending: rest, skippedLines: [] };
  if (
    second &&
    nonEmpty(first.fields) <= 2 &&
    nonEmpty(second.fields) > nonEmpty(first.fields) &&
    headerHits(opts.kind, second.fields, userMapping) > 0
  ) {
    // An Excel title row ("2013 CRUISE SCHEDULE as of:,,2/10/2013") above the real header.
    return { header: second, pending: [], skippedLines: [first.line] };
  }
  const hasIndexKeys = Object.keys(userMapping).some((k) => /^\s*\d+\s*$/.test(k));
  if (hasIndexKeys && looksLikeData(first.fields)) return { header: undefined, pending: [first, ...rest], skippedLines: [] };
  if (hasIndexKeys) return { header: first, pending: rest, skippedLines: [] }; // a header we do not know, mapped by position
  if (looksLikeData(first.fields)) {
    throw new CsvRefusedError(
      opts.sourceName,
      `the file has no header row (line ${first.line} already holds data: ${preview(first.fields)})`,
      'map the columns by position with --map mapping.json, e.g. {"1": "title", "2": "start_date", "3": "end_date"}',
    );
  }
  if (looksLikeHtmlPage([first, ...rest].map((r) => r.fields.join(',')).join('\n'))) {
    throw new CsvRefusedError(opts.sourceName, 'this is a web page (HTML), not a CSV file', "check the URL: it may lead to a login or error page, or to the page that links to the file rather than the file's own download link");
  }
  throw new CsvRefusedError(opts.sourceName, `no column header is recognized (line ${first.line}: ${preview(first.fields)})`, delimiterHint(opts, first) ?? MAP_HINT);
}

const DELIMITER_NAMES: Record<string, string> = { ',': "','", ';': "';'", '\t': 'tab', '|': 'pipe' };

/**
 * A `--delimiter` given by the user that leaves the header unknown while another delimiter splits
 * it into known columns: that delimiter is the mistake, not a missing mapping.
 */
function delimiterHint(opts: CsvOptions, first: RawRecord): string | undefined {
  const given = opts.delimiter;
  if (!given || given === 'auto') return undefined;
  const line = first.fields.join(given);
  const other = Object.keys(DELIMITER_NAMES).find((d) => d !== given && headerHits(opts.kind, line.split(d), opts.mapping ?? {}) > 0);
  return other === undefined ? undefined : `the header splits into known columns at ${DELIMITER_NAMES[other]}: pass --delimiter ${DELIMITER_NAMES[other]} (or auto)`;
}

/** The column plan, or a refusal for a mapping that names nothing, misses a required field or the key. */
function checkedPlan(opts: CsvOptions, headers: string[] | null, width: number): ColumnPlan {
  const file = opts.sourceName;
  const keyColumn = opts.key === undefined ? undefined : resolveColumn(opts.key, headers, width);
  const { plan, problems } = planColumns(opts.kind, headers, width, opts.mapping ?? {}, keyColumn);
  for (const p of problems) {
    if (p.problem === 'unknown-field') {
      throw new CsvRefusedError(file, `mapping: '${p.target}' is not a field for ${opts.kind}`, `known fields: ${FIELDS[opts.kind].join(', ')}, ignore`);
    }
    throw new CsvRefusedError(file, `mapping: no column '${p.key}' in this file`, `columns: ${listColumns(plan.labels)}`);
  }
  const missing = REQUIRED[opts.kind].filter((f) => !plan.fields.includes(f));
  if (missing.length) {
    throw new CsvRefusedError(file, `no column maps to ${missing.join(' or ')} (columns: ${listColumns(plan.labels)})`, MAP_HINT);
  }
  if (opts.key !== undefined && keyColumn === undefined) {
    throw new CsvRefusedError(file, `key column '${opts.key}' is not in this file`, `columns: ${listColumns(plan.labels)}`);
  }
  return plan;
}

/** Counters over the data rows: how many, how many short, and the date-order evidence. */
class RowScan {
  rows = 0;
  shortRows = 0;
  readonly dates = new DateEvidence();
  private readonly width: number;
  private readonly dateCols: number[];
  constructor(plan: ColumnPlan, width: number) {
    this.width = width;
    this.dateCols = plan.fields.flatMap((f, i) => (f === 'start_date' || f === 'end_date' ? [i] : []));
  }
  scan(rec: RawRecord): void {
    this.rows++;
    if (rec.fields.length < this.width) this.shortRows++;
    for (const c of this.dateCols) this.dates.add((rec.fields[c] ?? '').trim(), rec.line);
  }
}

export async function inspectCsv(open: () => NodeJS.ReadableStream, opts: CsvOptions): Promise<CsvInspection> {
  checkOptions(opts); // refuse bad options before touching the file
  const rs = await openChecked(open, opts, { encoding: opts.encoding ?? 'auto', delimiter: opts.delimiter ?? 'auto' });
  const reader = new NonBlank(rs.batches);
  try {
    const first = await reader.next();
    if (!first) throw new CsvRefusedError(opts.sourceName, 'the file is empty (no rows)');
    reader.blankLines = 0; // blank lines above the first row are not data; only those below the header count
    const second = await reader.next();
    const { header, pending, skippedLines } = chooseHeader(opts, first, second);
    if (second && header === second) reader.blankLines = 0; // below the title row: only those below the header count
    const headers = header ? header.fields.map((h) => h.trim()) : null;
    const width = header ? header.fields.length : first.fields.length;
    const plan = checkedPlan(opts, headers, width);
    const scan = new RowScan(plan, width);
    for (const rec of pending) scan.scan(rec);
    await reader.scanRest(scan);
    const dateFormat = scan.dates.verdict(opts.sourceName, opts.dateFormat);
    return {
      encoding: rs.sawInvalidUtf8 ? 'windows-1252' : rs.encoding,
      delimiter: rs.delimiter,
      headerLine: header ? header.line : 0,
      headers: headers ?? plan.labels,
      mapping: plan.mapping,
      unmapped: plan.unmapped,
      ...(dateFormat ? { dateFormat } : {}),
      rows: scan.rows,
      newline: rs.newline,
      fields: plan.fields,
      skippedLines,
      blankLines: reader.blankLines,
      ...(scan.shortRows ? { shortRows: scan.shortRows } : {}),
    };
  } finally {
    await rs.batches.return();
  }
}

/** The one report line for rows shorter than the header (read with their missing cells empty). */
export function shortRowsWarning(shortRows: number | undefined): string | undefined {
  if (!shortRows) return undefined;
  return `${shortRows} row${shortRows === 1 ? ' has' : 's have'} fewer cells than the header (as spreadsheet tools write them): the missing trailing cells were read as empty`;
}
