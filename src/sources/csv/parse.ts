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

type StepResult = { data: string[][]; meta: { cursor: number } };
type ParseResult = { meta: { cursor: number } };

/** Position of `ch` at or after `from` in `text`, or the text's length. */
function nextAt(text: string, ch: string, from: number): number {
  const at = text.indexOf(ch, from);
  return at === -1 ? text.length : at;
}

/**
 * Text → records numbered by physical line, papaparse in step mode: the step hands over each row
 * with the cursor just past it, so a row whose text holds no line break before its own terminator
 * has none in its fields either (fields are that text less quotes), and its lines are not counted.
 * Only the other rows (a quoted line break, a stray `\r`) go through countLineBreaks: checking
 * every field of every row cost as much as papaparse's own parsing (profiled, bench/csv-read-child.ts).
 */
class LineNumberedParser {
  private readonly parser: Papa.Parser;
  private readonly newlineLength: number;
  private line = 1;
  private text = '';
  private from = 0; // where the current row starts in `text`
  // The first `\n` and the first `\r` at or after `from`, each found again only once passed (a
  // file without `\r` is searched for it once per text, not once per row).
  private lfAt = 0;
  private crAt = 0;
  private terminated = true; // rows end in a line break (false for the very last one)
  private out: RawRecord[] = [];

  constructor(dialect: { delimiter: string; newline: Newline }) {
    this.newlineLength = dialect.newline.length;
    this.parser = new Papa.Parser({ delimiter: dialect.delimiter, newline: dialect.newline, quoteChar: '"', step: (r: StepResult) => this.row(r) });
  }

  private row(r: StepResult): void {
    const fields = r.data[0]!;
    const end = r.meta.cursor;
    if (this.lfAt < this.from) this.lfAt = nextAt(this.text, '\n', this.from);
    if (this.crAt < this.from) this.crAt = nextAt(this.text, '\r', this.from);
    const clean = this.terminated && Math.min(this.lfAt, this.crAt) >= end - this.newlineLength;
    this.out.push({ line: this.line, fields });
    this.line += clean ? 1 : 1 + countLineBreaks(fields);
    this.from = end;
  }

  /** Records of `text`; with `whole` false, the incomplete last row is left out. Returns them and the cursor past the last one. */
  parse(text: string, whole: boolean): { records: RawRecord[]; cursor: number } {
    this.text = text;
    this.from = 0;
    this.lfAt = -1;
    this.crAt = -1;
    this.terminated = !whole;
    this.out = [];
    const { cursor } = (this.parser.parse(text, 0, !whole) as ParseResult).meta;
    const records = this.out;
    this.out = [];
    this.text = '';
    return { records, cursor };
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
