import chardet from 'chardet';
import iconv from 'iconv-lite';
import { CalsyncError } from '../../errors/calsync-error.ts';
import { bomEncoding, isAscii, isValidUtf8Prefix, nulPattern } from '../text/sniff.ts';
import { textDecoder, type TextDecoderLike } from './utf8-decoder.ts';

/**
 * Bytes → text, BEFORE papaparse: papaparse's NODE_STREAM_INPUT mode decodes each Buffer on its
 * own, so a multi-byte UTF-8 character split across two chunks comes out as two U+FFFD
 * (papaparse #908), and it cannot decode Windows-125x at all. iconv-lite decoders are stateful:
 * the tail of one chunk is kept until the next one completes it.
 *
 * The encoding is decided from the first SAMPLE_BYTES only, so memory stays bounded (steps 1-3 are
 * the sniffer shared with ICS, src/sources/text/sniff.ts):
 *   1. a BOM (UTF-8, UTF-16 LE/BE, UTF-32 LE/BE) wins;
 *   2. NUL bytes in a fixed pattern → UTF-16 or UTF-32 without a BOM;
 *   3. valid UTF-8 (pure ASCII included) → UTF-8;
 *   4. otherwise chardet; its ISO-8859-1 guess, low-confidence guesses and no guess → Windows-1252
 *      (what Excel on Western Windows writes; it is ISO-8859-1 plus printable 0x80-0x9F).
 * A sample that is pure ASCII says nothing about the rest: the decoder notes any invalid UTF-8
 * later on (`sawInvalidUtf8`) so the inspection pass can switch such a file to Windows-1252.
 */

export const SAMPLE_BYTES = 64 * 1024;
/** Bytes decoded at a time (see decodedChunks). */
const DECODE_SLICE = 4 * 1024;

export interface EncodingGuess {
  /** Canonical lower-case name (`utf-8`, `utf-16le`, `windows-1252`, …). */
  encoding: string;
  /** How it was decided, for messages and tests. */
  how: 'bom' | 'option' | 'nul-pattern' | 'utf8' | 'ascii' | 'chardet' | 'fallback';
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

export function guessEncoding(sample: Buffer, requested = 'auto'): EncodingGuess {
  if (requested && requested.toLowerCase() !== 'auto') {
    const encoding = canonicalEncoding(requested);
    if (!iconv.encodingExists(encoding)) throw new UnknownEncoding(requested);
    return { encoding, how: 'option' };
  }
  const bom = bomEncoding(sample);
  if (bom) return { encoding: bom, how: 'bom' };
  const wide = nulPattern(sample);
  if (wide) return { encoding: wide, how: 'nul-pattern' };
  if (isAscii(sample)) return { encoding: 'utf-8', how: 'ascii' };
  if (isValidUtf8Prefix(sample)) return { encoding: 'utf-8', how: 'utf8' };
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

/** The first SAMPLE_BYTES (or the whole stream, when shorter); `done` when the stream ended. */
async function readHead(iterator: AsyncIterator<unknown>, source: ByteSource): Promise<{ sample: Buffer; done: boolean }> {
  const head: Buffer[] = [];
  let headBytes = 0;
  try {
    while (headBytes < SAMPLE_BYTES) {
      const next = await iterator.next();
      if (next.done) return { sample: Buffer.concat(head), done: true };
      const buf = toBuffer(next.value);
      head.push(buf);
      headBytes += buf.length;
    }
  } catch (error) {
    source.destroy?.();
    throw error;
  }
  return { sample: head.length === 1 ? head[0]! : Buffer.concat(head), done: false };
}

/** Notes a U+FFFD in decoded text when the sample was pure ASCII (the rest may not be UTF-8). */
class Utf8Watch {
  saw = false;
  private readonly active: boolean;
  constructor(how: EncodingGuess['how']) {
    this.active = how === 'ascii';
  }
  note(text: string): string {
    if (this.active && !this.saw && text.includes('\uFFFD')) this.saw = true;
    return text;
  }
}

interface DecodePlan {
  iterator: AsyncIterator<unknown>;
  source: ByteSource;
  sample: Buffer;
  done: boolean;
  decoder: TextDecoderLike;
  watch: Utf8Watch;
}

/**
 * Decoded text of the sample, then of the rest of the stream. Stopping early (return/throw)
 * destroys the source, so a refused file does not keep a file descriptor open.
 */
async function* decodedChunks(plan: DecodePlan): AsyncGenerator<string, void, undefined> {
  const { iterator, source, decoder, watch } = plan;
  // In slices: a 64 KiB read decoded at once is one string of up to 128 KiB that stays alive until
  // its last row is normalized, so every young-generation GC copies it; V8 then grows the young
  // generation with the file's length (profiled: peak RSS +45 MiB at 100k rows vs 10k).
  function* sliced(buf: Buffer): Generator<string> {
    for (let at = 0; at < buf.length; at += DECODE_SLICE) {
      const text = watch.note(decoder.write(buf.subarray(at, at + DECODE_SLICE)));
      if (text) yield text;
    }
  }
  let finished = false;
  try {
    const head = sliced(plan.sample);
    plan.sample = EMPTY; // do not keep the sample alive for the whole read
    yield* head;
    while (!plan.done) {
      const next = await iterator.next();
      if (next.done) break;
      yield* sliced(toBuffer(next.value));
    }
    const tail = decoder.end();
    if (tail) yield watch.note(tail);
    finished = true;
  } finally {
    if (!finished) {
      await iterator.return?.();
      source.destroy?.();
    }
  }
}

/**
 * Reads the first SAMPLE_BYTES to decide the encoding, then returns a pull-based generator of
 * decoded text over the whole stream.
 */
export async function decodeBytes(source: ByteSource, requested = 'auto'): Promise<DecodedText> {
  const iterator = (source as AsyncIterable<unknown>)[Symbol.asyncIterator]();
  const { sample, done } = await readHead(iterator, source);
  let guess: EncodingGuess;
  try {
    guess = guessEncoding(sample, requested);
  } catch (error) {
    await iterator.return?.();
    source.destroy?.();
    throw error;
  }
  const watch = new Utf8Watch(guess.how);
  const decoder = textDecoder(guess.encoding);
  return {
    encoding: guess.encoding,
    how: guess.how,
    chunks: decodedChunks({ iterator, source, sample, done, decoder, watch }),
    get sawInvalidUtf8() {
      return watch.saw;
    },
  };
}
