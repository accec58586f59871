import { Readable, pipeline, type Transform } from 'node:stream';
import zlib from 'node:zlib';
import { BodyTooLarge } from './errors.ts';
import { CalsyncError } from '../../errors/calsync-error.ts';

/**
 * Reading a body into memory under a byte cap, decompressing it ourselves.
 *
 * undici's `maxResponseSize` counts wire bytes, so a 100 KB gzip that inflates to 100 MB passes
 * it. Here every stage is a pull-based async iterable: the decompressor only produces output as
 * fast as the collector asks for it, and the collector stops (which tears the whole chain down,
 * socket included) the moment the decoded total crosses the cap. Memory stays near the cap plus
 * one zlib chunk, whatever the compression ratio.
 */

type Chunks = AsyncIterable<Buffer>;
type Decoder = (source: Chunks) => Chunks;

/** More layers than this is not a real feed server; undici's own fetch caps the chain too. */
const MAX_ENCODINGS = 3;

/** Thrown for a Content-Encoding we do not decode; the caller maps it to a `network` error. */
export class UnsupportedEncoding extends CalsyncError {
  readonly code = 'encoding-unsupported';
  readonly encoding: string;
  constructor(encoding: string) {
    super(`unsupported content-encoding "${encoding}"`);
    this.name = 'UnsupportedEncoding';
    this.encoding = encoding;
  }
}

/** What we advertise; `decoders` must handle each of these. */
export const ACCEPT_ENCODING = 'gzip, deflate, br';

/**
 * Decoders for a Content-Encoding header value, outermost first. The header lists codings in
 * the order they were applied, so they are undone in reverse.
 */
export function decodersFor(contentEncoding: string | undefined): Decoder[] {
  if (!contentEncoding) return [];
  const codings = contentEncoding
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  if (codings.length > MAX_ENCODINGS) throw new UnsupportedEncoding(contentEncoding);
  return codings.reverse().map((coding) => {
    switch (coding) {
      case 'gzip':
      case 'x-gzip':
        return through(() => zlib.createGunzip());
      case 'br':
        return through(() => zlib.createBrotliDecompress());
      case 'deflate':
        // RFC 9110 says zlib-wrapped, but servers also send raw deflate; a zlib stream starts
        // with a CMF byte whose low nibble is 8 (the deflate method), which raw data rarely does.
        return through((first) => ((first[0]! & 0x0f) === 0x08 ? zlib.createInflate() : zlib.createInflateRaw()));
      default:
        throw new UnsupportedEncoding(coding);
    }
  });
}

/**
 * Pass a byte stream through a zlib transform created once the first chunk is known. Strict
 * zlib settings on purpose: a truncated feed must fail, not be imported half (the missing half
 * would be retired from the site).
 */
function through(make: (first: Buffer) => Transform): Decoder {
  return async function* decode(source) {
    const it = source[Symbol.asyncIterator]();
    const first = await it.next();
    if (first.done) return; // an empty body decodes to nothing
    const inflater = make(first.value);
    // pipeline() destroys every stage when any stage fails or the consumer stops early, so an
    // abandoned decode also releases the source (and, at the bottom, the socket).
    pipeline(Readable.from(replay(first.value, it), { objectMode: false }), inflater, () => {});
    yield* inflater as AsyncIterable<Buffer>;
  };
}

async function* replay(first: Buffer, rest: AsyncIterator<Buffer>): Chunks {
  try {
    yield first;
    for (;;) {
      const next = await rest.next();
      if (next.done) return;
      yield next.value;
    }
  } finally {
    await rest.return?.();
  }
}

/** Count bytes flowing through; throw BodyTooLarge as soon as the total passes `limit`. */
export async function* capped(source: Chunks, limit: number, stage: 'wire' | 'decoded'): Chunks {
  let total = 0;
  for await (const chunk of source) {
    total += chunk.length;
    if (total > limit) throw new BodyTooLarge(limit, stage);
    yield chunk;
  }
}

/**
 * Read `body`, undo `contentEncoding`, and return the decoded bytes; at most `maxBytes` on the
 * wire and at most `maxBytes` after decoding.
 */
export async function readCapped(body: Chunks, contentEncoding: string | undefined, maxBytes: number): Promise<Buffer> {
  let stream = capped(toBuffers(body), maxBytes, 'wire');
  for (const decode of decodersFor(contentEncoding)) stream = decode(stream);
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of capped(stream, maxBytes, 'decoded')) {
    chunks.push(chunk);
    total += chunk.length;
  }
  return Buffer.concat(chunks, total);
}

/** Streams can hand out strings or Uint8Arrays; the counters want Buffers. */
async function* toBuffers(source: AsyncIterable<Buffer | Uint8Array | string>): Chunks {
  for await (const chunk of source) yield typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}
