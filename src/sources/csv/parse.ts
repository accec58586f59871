import Papa from 'papaparse';
import { Readable, pipeline } from 'node:stream';
import { decodeBytes, type DecodedText } from './decode.ts';
import { detectDelimiter, detectNewline, type Newline } from './delimiter.ts';

/**
 * Bytes → records with PHYSICAL line numbers, streamed.
 *
 * Chain: byte source → stateful decoder (decode.ts) → Papa.parse(NODE_STREAM_INPUT) → async
 * iteration of papaparse's readable side. Each stage pulls from the previous one, so at most a
 * few chunks and a few rows are in flight whatever the file size (papaparse pauses its parser
 * when its readable buffer is full and resumes on read). Papa gets the delimiter and the line break
 * explicitly: its own guess looks only at the first chunk, which can be a single byte.
 *
 * Line numbers: papaparse does not report them in this mode, so they are counted here: a record
 * starts on the line after the previous one ended, and spans 1 + (line breaks inside its quoted
 * fields) lines. Blank lines come through as records with one empty field and are counted too.
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
  records: AsyncGenerator<RawRecord, void, undefined>;
  readonly sawInvalidUtf8: boolean;
}

export interface RecordOptions {
  encoding?: string;
  delimiter?: string;
  newline?: Newline;
}

const SNIFF_CHARS = 64 * 1024;
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

export async function openRecords(source: NodeJS.ReadableStream, opts: RecordOptions = {}): Promise<RecordStream> {
  const decoded = await decodeBytes(source, opts.encoding ?? 'auto');
  // Gather enough text to sniff the dialect; it is replayed in front of the rest.
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

  async function* text(): AsyncGenerator<string, void, undefined> {
    try {
      if (head) yield head;
      head = '';
      if (!complete) yield* decoded.chunks;
    } finally {
      await decoded.chunks.return();
    }
  }

  async function* records(): AsyncGenerator<RawRecord, void, undefined> {
    const input = Readable.from(text(), { objectMode: true });
    const papa = Papa.parse(Papa.NODE_STREAM_INPUT, {
      delimiter,
      newline,
      quoteChar: '"',
      header: false,
      dynamicTyping: false, // ids and postcodes stay strings ("01234")
      skipEmptyLines: false, // blank lines must still be counted
    });
    // pipeline() wires errors both ways: a read error surfaces in the loop below, and leaving the
    // loop early destroys papa, which tears the input (and the file) down.
    pipeline(input, papa, () => {});
    let line = 1;
    try {
      for await (const fields of papa as AsyncIterable<string[]>) {
        yield { line, fields };
        line += 1 + countLineBreaks(fields);
      }
    } finally {
      if (!papa.destroyed) papa.destroy();
    }
  }

  return {
    encoding: decoded.encoding,
    encodingHow: decoded.how,
    delimiter,
    newline,
    records: records(),
    get sawInvalidUtf8() {
      return decoded.sawInvalidUtf8;
    },
  };
}
