import { UnknownEncoding } from './decode.ts';
import { ORDER_FORMAT, numericDateParts, parseDateFormat, parseDateTime, type DateOrder } from './dates.ts';
import { CsvRefusedError } from './errors.ts';
import { FIELDS, REQUIRED, headerHits, listColumns, planColumns, resolveColumn } from './headers.ts';
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
const DATE_HINT = 'give the order with --date-format DD/MM/YYYY or --date-format MM/DD/YYYY';

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

interface DateEvidence {
  line: number;
  value: string;
}

export async function inspectCsv(open: () => NodeJS.ReadableStream, opts: CsvOptions): Promise<CsvInspection> {
  const file = opts.sourceName;
  checkOptions(opts); // refuse bad options before touching the file
  const userMapping = opts.mapping ?? {};
  const rs = await openChecked(open, opts, { encoding: opts.encoding ?? 'auto', delimiter: opts.delimiter ?? 'auto' });
  const records = rs.records;
  let blankLines = 0;
  const nextNonBlank = async (): Promise<RawRecord | undefined> => {
    for (;;) {
      const next = await records.next();
      if (next.done) return undefined;
      if (!isBlank(next.value.fields)) return next.value;
      blankLines++;
    }
  };

  try {
    const first = await nextNonBlank();
    if (!first) throw new CsvRefusedError(file, 'the file is empty (no rows)');
    // Blank lines above the first row are not data; only count those below the header.
    blankLines = 0;
    const second = await nextNonBlank();

    // Which record is the header?
    let header: RawRecord | undefined;
    const skippedLines: number[] = [];
    const pending: RawRecord[] = []; // data records already read
    const hits1 = headerHits(opts.kind, first.fields, userMapping);
    const hasIndexKeys = Object.keys(userMapping).some((k) => /^\s*\d+\s*$/.test(k));
    if (hits1 > 0) {
      header = first;
      if (second) pending.push(second);
    } else if (
      second &&
      nonEmpty(first.fields) <= 2 &&
      nonEmpty(second.fields) > nonEmpty(first.fields) &&
      headerHits(opts.kind, second.fields, userMapping) > 0
    ) {
      // An Excel title row ("2013 CRUISE SCHEDULE as of:,,2/10/2013") above the real header.
      skippedLines.push(first.line);
      header = second;
      blankLines = 0;
    } else if (hasIndexKeys && looksLikeData(first.fields)) {
      header = undefined; // header-less, mapped by position
      pending.push(first);
      if (second) pending.push(second);
    } else if (hasIndexKeys) {
      header = first; // a header we do not know, mapped by position
      if (second) pending.push(second);
    } else if (looksLikeData(first.fields)) {
      throw new CsvRefusedError(
        file,
        `the file has no header row (line ${first.line} already holds data: ${preview(first.fields)})`,
        'map the columns by position with --map mapping.json, e.g. {"1": "title", "2": "start_date", "3": "end_date"}',
      );
    } else {
      throw new CsvRefusedError(file, `no column header is recognized (line ${first.line}: ${preview(first.fields)})`, MAP_HINT);
    }

    const headers = header ? header.fields.map((h) => h.trim()) : null;
    const width = header ? header.fields.length : first.fields.length;
    const { plan, problems } = planColumns(opts.kind, headers, width, userMapping);
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
    if (opts.key !== undefined && resolveColumn(opts.key, headers, width) === undefined) {
      throw new CsvRefusedError(file, `key column '${opts.key}' is not in this file`, `columns: ${listColumns(plan.labels)}`);
    }

    // Stream the rest: count rows, collect date-order evidence.
    const dateCols = plan.fields.flatMap((f, i) => (f === 'start_date' || f === 'end_date' ? [i] : []));
    const evidence: { dayFirst?: DateEvidence; monthFirst?: DateEvidence; ambiguous?: DateEvidence; numeric: number } = { numeric: 0 };
    let rows = 0;
    let shortRows = 0;
    const scan = (rec: RawRecord): void => {
      rows++;
      if (rec.fields.length < width) shortRows++;
      for (const c of dateCols) {
        const value = (rec.fields[c] ?? '').trim();
        const parts = value ? numericDateParts(value) : undefined;
        if (!parts) continue;
        evidence.numeric++;
        const { first: a, second: b } = parts;
        if (a > 12 && b <= 12) evidence.dayFirst ??= { line: rec.line, value };
        else if (b > 12 && a <= 12) evidence.monthFirst ??= { line: rec.line, value };
        else if (a <= 12 && b <= 12 && a !== b) evidence.ambiguous ??= { line: rec.line, value };
      }
    };
    for (const rec of pending) scan(rec);
    for (;;) {
      const next = await records.next();
      if (next.done) break;
      if (isBlank(next.value.fields)) blankLines++;
      else scan(next.value);
    }

    let dateFormat = opts.dateFormat;
    if (!dateFormat && evidence.numeric > 0) {
      const { dayFirst, monthFirst, ambiguous } = evidence;
      if (dayFirst && monthFirst) {
        throw new CsvRefusedError(
          file,
          `numeric dates disagree on their order: line ${dayFirst.line} has '${dayFirst.value}' (day first), line ${monthFirst.line} has '${monthFirst.value}' (month first)`,
          `${DATE_HINT}; rows not matching it are then rejected one by one`,
        );
      }
      if (dayFirst) dateFormat = ORDER_FORMAT.DMY;
      else if (monthFirst) dateFormat = ORDER_FORMAT.MDY;
      else if (ambiguous) {
        throw new CsvRefusedError(
          file,
          `numeric dates are ambiguous: every one could be day/month or month/day (e.g. line ${ambiguous.line}: '${ambiguous.value}')`,
          DATE_HINT,
        );
      } else dateFormat = ORDER_FORMAT.MDY; // every date has day = month: either order reads the same
    }

    const encoding = rs.sawInvalidUtf8 ? 'windows-1252' : rs.encoding;
    return {
      encoding,
      delimiter: rs.delimiter,
      headerLine: header ? header.line : 0,
      headers: headers ?? plan.labels,
      mapping: plan.mapping,
      unmapped: plan.unmapped,
      ...(dateFormat ? { dateFormat } : {}),
      rows,
      newline: rs.newline,
      fields: plan.fields,
      skippedLines,
      blankLines,
      ...(shortRows ? { shortRows } : {}),
    };
  } finally {
    await records.return();
  }
}


/** The one report line for rows shorter than the header (read with their missing cells empty). */
export function shortRowsWarning(shortRows: number | undefined): string | undefined {
  if (!shortRows) return undefined;
  return `${shortRows} row${shortRows === 1 ? ' has' : 's have'} fewer cells than the header (as spreadsheet tools write them): the missing trailing cells were read as empty`;
}
