import Papa from 'papaparse';
import { decodeBytes, type DecodedText } from './decode.ts';
import { detectDelimiter, detectNewline, type Newline } from './delimiter.ts';

/**
 * Bytes → records with PHYSICAL line numbers, streamed.
 *
 * Chain: byte source → stateful decoder (decode.ts) → papaparse's core `Papa.Parser`, driven here
 * chunk by chunk from a pull-based async generator: nothing is read until the consumer asks for
 * the next record, so memory holds one text chunk and its rows whatever the file size.
 *
 * Why not `Papa.parse(Papa.NODE_STREAM_INPUT)` piped into an objectMode Writable (LIBRARIES.md
 * §4.3)? Measured on 5.7.1: its backpressure pauses the parser every 16 rows and resumes it through
 * a `setTimeout(resume, 3)` poll (ParserHandle.resume), so 100k short rows take ~13 s with 64 KB
 * chunks instead of ~0.13 s, whether read by async iteration or by a Writable. `Papa.Parser` is the
 * same parser ChunkStreamer uses (`parse(text, base, ignoreLastRow)` returning the cursor of the
 * last complete row); we keep the incomplete tail and prepend it to the next text, exactly as
 * ChunkStreamer does. Delimiter and line break are passed explicitly: papaparse's own guess looks
 * only at the first chunk, which can be a single byte.
 *
 * Line numbers: papaparse does not report them, so they are counted here: a record starts on the
 * line after the previous one ended, and spans 1 + (line breaks inside its quoted fields) lines.
 * Blank lines come through as records with one empty field and are counted too.
 */

export interface RawRecord {
  /** Physical line the record starts on (1-based). */
  line: number;
  fields: string[];
}

export interface RecordStream {
  encoding: string;
  encodingHow: DecodedText['how'];
  delimiter: string;
  newline: Newline;
  /** One record at a time. Read either `records` or `batches`, not both: they share one parse. */
  records: AsyncGenerator<RawRecord, void, undefined>;
  /**
   * The same records, as the arrays each parsed text chunk gives: a reader of every row (readCsv)
   * loops over them synchronously instead of awaiting once per record.
   */
  batches: AsyncGenerator<RawRecord[], void, undefined>;
  readonly sawInvalidUtf8: boolean;
}

export interface RecordOptions {
  encoding?: string;
  delimiter?: string;
  newline?: Newline;
}

const SNIFF_CHARS = 64 * 1024;
const MIN_PARSE_CHARS = 4 * 1024;
const LINE_BREAKS = /\r\n|\r|\n/g;

export function countLineBreaks(fields: string[]): number {
  let n = 0;
  for (const f of fields) {
    if (f.length && (f.includes('\n') || f.includes('\r'))) n += f.match(LINE_BREAKS)!.length;
  }
  return n;
}

export function isBlank(fields: string[]): boolean {
  for (const f of fields) if (f.trim() !== '') return false;
  return true;
}

interface Dialect {
  /** Text already read to sniff the dialect, replayed in front of the rest. */
  head: string;
  /** The head is the whole file. */
  complete: boolean;
  delimiter: string;
  newline: Newline;
}

/** Gathers enough text to sniff the line break and delimiter (unless both are given). */
async function sniffDialect(decoded: DecodedText, opts: RecordOptions): Promise<Dialect> {
  let head = '';
  let complete = false;
  const needSniff = !opts.newline || !opts.delimiter || opts.delimiter === 'auto';
  while (needSniff && head.length < SNIFF_CHARS) {
    const next = await decoded.chunks.next();
    if (next.done) {
      complete = true;
      break;
    }
    head += next.value;
  }
  const newline = opts.newline ?? detectNewline(head);
  const delimiter = opts.delimiter && opts.delimiter !== 'auto' ? opts.delimiter : detectDelimiter(head, complete);
  return { head, complete, delimiter, newline };
}

async function* textOf(decoded: DecodedText, dialect: Dialect): AsyncGenerator<string, void, undefined> {
  try {
    const { head } = dialect;
    dialect.head = '';
    if (head) yield head;
    if (!dialect.complete) yield* decoded.chunks;
  } finally {
    await decoded.chunks.return();
  }
}

type ParseResult = { data: string[][]; meta: { cursor: number } };

/** Occurrences of `part` in `text` before `end`. */
function countOf(text: string, part: string, end: number): number {
  let n = 0;
  for (let at = text.indexOf(part); at !== -1 && at < end; at = text.indexOf(part, at + 1)) n++;
  return n;
}

/**
 * Rows of `text` (up to `end`) that hold a line break of their own, as a well-formed file splits
 * it: a line break inside quotes (even quotes before it on its row: `""` counts twice), or one that
 * is not the file's line break. Only a guess for other text: callers check it (parse).
 */
function rowsWithBreaks(text: string, end: number, newline: Newline): Set<number> {
  const marked = new Set<number>();
  let row = 0;
  let inQuotes = false;
  let quote = text.indexOf('"');
  let lf = text.indexOf('\n');
  let cr = text.indexOf('\r');
  for (;;) {
    const at = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
    if (at === -1 || at >= end) return marked;
    for (; quote !== -1 && quote < at; quote = text.indexOf('"', quote + 1)) inQuotes = !inQuotes;
    let next = at + 1;
    if (!inQuotes && text.startsWith(newline, at)) {
      row++;
      next = at + newline.length;
    } else marked.add(row);
    if (lf !== -1 && lf < next) lf = text.indexOf('\n', next);
    if (cr !== -1 && cr < next) cr = text.indexOf('\r', next);
  }
}

/**
 * Text → records numbered by physical line. A record spans 1 + (line breaks in its fields) lines
 * (countLineBreaks). papaparse parses a whole text at a time (its per-row step callback cost more
 * than half a microsecond a row, profiled on bench/csv-read-child.ts) and the lines are numbered
 * after, from the line breaks of the text itself:
 * - those of the text the records came from, less one per record's terminator, bound the ones in
 *   their fields: a field is its text less quotes (papaparse drops nothing else but blanks after a
 *   closing quote), and no two fields' `\r` and `\n` are next to each other in the text. The bound
 *   holds as long as no terminator can pair up with a field's `\r` or `\n` into one line break: a
 *   `\r\n` terminator, a `\n` one in a text without `\r`, a `\r` one in a text without `\n`.
 *   Other texts (a stray `\r` in a `\n` file) have every record counted;
 * - the rows that hold line breaks are guessed from the text (rowsWithBreaks) and counted: when
 *   they hold as many as the bound, the other rows hold none. Otherwise (a malformed file)
 *   every row is counted.
 */
class LineNumberedParser {
  private readonly parser: Papa.Parser;
  private readonly newline: Newline;
  private line = 1;

  constructor(dialect: { delimiter: string; newline: Newline }) {
    this.newline = dialect.newline;
    this.parser = new Papa.Parser({ delimiter: dialect.delimiter, newline: dialect.newline, quoteChar: '"' });
  }

  /** At least the line breaks in the fields of the `records` records before `end`; undefined when unknown (see the class comment). */
  private fieldBreaksAtMost(text: string, end: number, records: number): number | undefined {
    if (this.newline === '\r\n') return countOf(text, '\n', end) + countOf(text, '\r', end) - countOf(text, '\r\n', end) - records;
    const other = this.newline === '\n' ? '\r' : '\n';
    const at = text.indexOf(other);
    return at !== -1 && at < end ? undefined : countOf(text, this.newline, end) - records;
  }

  /** Line breaks in each record's fields (0 for most), found as the class comment says. */
  private breaksOf(text: string, data: string[][], end: number, whole: boolean): number[] {
    const breaks = new Array<number>(data.length).fill(0);
    // Every record ends in a line break unless `whole` (the file's last, unterminated row).
    const bound = whole ? undefined : this.fieldBreaksAtMost(text, end, data.length);
    if (bound === 0) return breaks;
    let found = 0;
    if (bound !== undefined) {
      for (const i of rowsWithBreaks(text, end, this.newline)) if (i < data.length) found += breaks[i] = countLineBreaks(data[i]!);
    }
    if (found !== bound) for (let i = 0; i < data.length; i++) breaks[i] = countLineBreaks(data[i]!);
    return breaks;
  }

  /** Records of `text`; with `whole` false, the incomplete last row is left out. Returns them and the cursor past the last one. */
  parse(text: string, whole: boolean): { records: RawRecord[]; cursor: number } {
    const { data, meta } = this.parser.parse(text, 0, !whole) as ParseResult;
    const breaks = this.breaksOf(text, data, meta.cursor, whole);
    const records = new Array<RawRecord>(data.length);
    for (let i = 0; i < data.length; i++) {
      records[i] = { line: this.line, fields: data[i]! };
      this.line += 1 + breaks[i]!;
    }
    return { records, cursor: meta.cursor };
  }
}

/** Text → batches of records, numbering physical lines (see the header comment). */
async function* batchesOf(text: AsyncIterable<string>, dialect: Dialect): AsyncGenerator<RawRecord[], void, undefined> {
  const parser = new LineNumberedParser(dialect);
  let tail = ''; // the incomplete last row of the text parsed so far
  let pending = '';
  for await (const chunk of text) {
    pending += chunk;
    // Parse once enough new text has arrived to outweigh re-scanning the tail: keeps tiny chunks
    // (1 byte at a time) and a huge quoted field both linear overall.
    if (pending.length < MIN_PARSE_CHARS || pending.length < tail.length) continue;
    const input = tail + pending;
    pending = '';
    const { records, cursor } = parser.parse(input, false);
    tail = input.slice(cursor);
    if (records.length) yield records;
  }
  // The end: complete rows first, then the last row without a final line break (parsing all of
  // it as the last chunk would turn a final line break into an extra empty record).
  const rest = tail + pending;
  const { records, cursor } = parser.parse(rest, false);
  if (records.length) yield records;
  const last = rest.slice(cursor);
  if (last) yield parser.parse(last, true).records;
}

async function* recordsOf(batches: AsyncGenerator<RawRecord[], void, undefined>): AsyncGenerator<RawRecord, void, undefined> {
  try {
    for await (const batch of batches) yield* batch;
  } finally {
    await batches.return();
  }
}

export async function openRecords(source: NodeJS.ReadableStream, opts: RecordOptions = {}): Promise<RecordStream> {
  const decoded = await decodeBytes(source, opts.encoding ?? 'auto');
  const dialect = await sniffDialect(decoded, opts);
  const batches = batchesOf(textOf(decoded, dialect), dialect);
  return {
    encoding: decoded.encoding,
    encodingHow: decoded.how,
    delimiter: dialect.delimiter,
    newline: dialect.newline,
    records: recordsOf(batches),
    batches,
    get sawInvalidUtf8() {
      return decoded.sawInvalidUtf8;
    },
  };
}
