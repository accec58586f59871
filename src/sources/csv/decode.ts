import chardet from 'chardet';
import iconv from 'iconv-lite';
import { CalsyncError } from '../../errors/calsync-error.ts';

/**
 * Bytes → text, BEFORE papaparse: papaparse's NODE_STREAM_INPUT mode decodes each Buffer on its
 * own, so a multi-byte UTF-8 character split across two chunks comes out as two U+FFFD
 * (papaparse #908), and it cannot decode Windows-125x at all. iconv-lite decoders are stateful:
 * the tail of one chunk is kept until the next one completes it.
 *
 * The encoding is decided from the first SAMPLE_BYTES only, so memory stays bounded:
 *   1. a BOM (UTF-8, UTF-16 LE/BE, UTF-32 LE/BE) wins;
 *   2. NUL bytes on every other position → UTF-16 without a BOM;
 *   3. valid UTF-8 (pure ASCII included) → UTF-8;
 *   4. otherwise chardet; its ISO-8859-1 guess, low-confidence guesses and no guess → Windows-1252
 *      (what Excel on Western Windows writes; it is ISO-8859-1 plus printable 0x80-0x9F).
 * A sample that is pure ASCII says nothing about the rest: the decoder notes any invalid UTF-8
 * later on (`sawInvalidUtf8`) so the inspection pass can switch such a file to Windows-1252.
 */

export const SAMPLE_BYTES = 64 * 1024;

export interface EncodingGuess {
  /** Canonical lower-case name (`utf-8`, `utf-16le`, `windows-1252`, …). */
  encoding: string;
  /** How it was decided, for messages and tests. */
  how: 'bom' | 'option' | 'utf16-heuristic' | 'utf8' | 'ascii' | 'chardet' | 'fallback';
}

export class UnknownEncoding extends CalsyncError {
  readonly code = 'csv-encoding-unknown';
  readonly encoding: string;
  constructor(encoding: string) {
    super(`unknown encoding "${encoding}"`);
    this.name = 'UnknownEncoding';
    this.encoding = encoding;
  }
}

const CANONICAL: Record<string, string> = {
  utf8: 'utf-8',
  utf16le: 'utf-16le',
  utf16be: 'utf-16be',
  utf32le: 'utf-32le',
  utf32be: 'utf-32be',
  latin1: 'iso-8859-1',
  iso88591: 'iso-8859-1',
  cp1252: 'windows-1252',
  win1252: 'windows-1252',
  windows1252: 'windows-1252',
};

export function canonicalEncoding(name: string): string {
  const squashed = name.toLowerCase().replace(/[^a-z0-9]/g, '');
  return CANONICAL[squashed] ?? name.toLowerCase();
}

function bomOf(sample: Buffer): string | undefined {
  if (sample.length >= 4 && sample[0] === 0xff && sample[1] === 0xfe && sample[2] === 0 && sample[3] === 0) return 'utf-32le';
  if (sample.length >= 4 && sample[0] === 0 && sample[1] === 0 && sample[2] === 0xfe && sample[3] === 0xff) return 'utf-32be';
  if (sample.length >= 3 && sample[0] === 0xef && sample[1] === 0xbb && sample[2] === 0xbf) return 'utf-8';
  if (sample.length >= 2 && sample[0] === 0xff && sample[1] === 0xfe) return 'utf-16le';
  if (sample.length >= 2 && sample[0] === 0xfe && sample[1] === 0xff) return 'utf-16be';
  return undefined;
}

/** Text in UTF-16 without a BOM: mostly-ASCII content leaves a NUL in every other byte. */
function utf16Heuristic(sample: Buffer): string | undefined {
  const n = Math.min(sample.length, 4096) & ~1;
  if (n < 4) return undefined;
  let evenZeros = 0;
  let oddZeros = 0;
  for (let i = 0; i < n; i += 2) {
    if (sample[i] === 0) evenZeros++;
    if (sample[i + 1] === 0) oddZeros++;
  }
  const pairs = n / 2;
  if (oddZeros > pairs * 0.3 && evenZeros < pairs * 0.05) return 'utf-16le';
  if (evenZeros > pairs * 0.3 && oddZeros < pairs * 0.05) return 'utf-16be';
  return undefined;
}

function isAscii(sample: Buffer): boolean {
  for (let i = 0; i < sample.length; i++) if (sample[i]! > 0x7f) return false;
  return true;
}

function isValidUtf8(sample: Buffer): boolean {
  try {
    // stream: true tolerates a character cut at the end of the sample.
    new TextDecoder('utf-8', { fatal: true }).decode(sample, { stream: true });
    return true;
  } catch {
    return false;
  }
}

export function guessEncoding(sample: Buffer, requested = 'auto'): EncodingGuess {
  if (requested && requested.toLowerCase() !== 'auto') {
    const encoding = canonicalEncoding(requested);
    if (!iconv.encodingExists(encoding)) throw new UnknownEncoding(requested);
    return { encoding, how: 'option' };
  }
  const bom = bomOf(sample);
  if (bom) return { encoding: bom, how: 'bom' };
  const utf16 = utf16Heuristic(sample);
  if (utf16) return { encoding: utf16, how: 'utf16-heuristic' };
  if (isAscii(sample)) return { encoding: 'utf-8', how: 'ascii' };
  if (isValidUtf8(sample)) return { encoding: 'utf-8', how: 'utf8' };
  const matches = chardet.analyse(sample);
  const top = matches[0];
  if (top && top.confidence >= 50) {
    const name = canonicalEncoding(top.name);
    // chardet names Latin-1 for Western text; real files of that kind are Windows-1252.
    if (name !== 'iso-8859-1' && name !== 'windows-1252' && name !== 'utf-8' && iconv.encodingExists(name)) {
      return { encoding: name, how: 'chardet' };
    }
  }
  return { encoding: 'windows-1252', how: 'fallback' };
}

export interface DecodedText {
  encoding: string;
  how: EncodingGuess['how'];
  /** Decoded text, in the order read; pulling drives the byte source (backpressure). */
  chunks: AsyncGenerator<string, void, undefined>;
  /** True once a U+FFFD was produced by the UTF-8 decoder for a file whose sample was pure ASCII. */
  readonly sawInvalidUtf8: boolean;
}

const EMPTY = Buffer.alloc(0);

type ByteSource = NodeJS.ReadableStream & { destroy?: (error?: Error) => void };

function toBuffer(chunk: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (typeof chunk === 'string') return Buffer.from(chunk, 'utf8');
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  throw new TypeError('CSV source must yield bytes');
}

/**
 * Reads the first SAMPLE_BYTES to decide the encoding, then returns a pull-based generator of
 * decoded text over the whole stream. Stopping the generator early (return/throw) destroys the
 * source, so a refused file does not keep a file descriptor open.
 */
export async function decodeBytes(source: ByteSource, requested = 'auto'): Promise<DecodedText> {
  const iterator = (source as AsyncIterable<unknown>)[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  let headBytes = 0;
  let done = false;
  try {
    while (headBytes < SAMPLE_BYTES) {
      const next = await iterator.next();
      if (next.done) {
        done = true;
        break;
      }
      const buf = toBuffer(next.value);
      head.push(buf);
      headBytes += buf.length;
    }
  } catch (error) {
    source.destroy?.();
    throw error;
  }
  const sample = head.length === 1 ? head[0]! : Buffer.concat(head);
  let guess: EncodingGuess;
  try {
    guess = guessEncoding(sample, requested);
  } catch (error) {
    await iterator.return?.();
    source.destroy?.();
    throw error;
  }
  const decoder = iconv.getDecoder(guess.encoding, { stripBOM: true });
  const watchUtf8 = guess.how === 'ascii';
  const state = { sawInvalidUtf8: false };
  let first: Buffer = sample;
  const note = (text: string): string => {
    if (watchUtf8 && !state.sawInvalidUtf8 && text.includes('\uFFFD')) state.sawInvalidUtf8 = true;
    return text;
  };

  async function* chunks(): AsyncGenerator<string, void, undefined> {
    let finished = false;
    try {
      if (first.length) {
        const text = note(decoder.write(first));
        first = EMPTY; // do not keep the sample alive for the whole read
        if (text) yield text;
      }
      while (!done) {
        const next = await iterator.next();
        if (next.done) break;
        const text = note(decoder.write(toBuffer(next.value)));
        if (text) yield text;
      }
      const tail = decoder.end();
      if (tail) yield note(tail);
      finished = true;
    } finally {
      if (!finished) {
        await iterator.return?.();
        source.destroy?.();
      }
    }
  }

  return {
    encoding: guess.encoding,
    how: guess.how,
    chunks: chunks(),
    get sawInvalidUtf8() {
      return state.sawInvalidUtf8;
    },
  };
}
