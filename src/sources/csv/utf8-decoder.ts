import { isUtf8 } from 'node:buffer';
import iconv from 'iconv-lite';

/**
 * iconv-lite's UTF-8 decoder (`getDecoder('utf-8', { stripBOM: true })`), with Node's own decoding
 * for input that is valid UTF-8: iconv-lite goes through Node's StringDecoder, which cost about
 * twice a plain `toString` of the same bytes (profiled on bench/csv-read-child.ts, both passes).
 *
 * Same output by construction:
 * - bytes are decoded up to the last whole character, the bytes of a character cut by the end of a
 *   chunk wait for the next one (the StringDecoder's rule: a lead byte is 110xxxxx, 1110xxxx or
 *   11110xxx, whatever follows), and valid UTF-8 decodes the same however it is cut;
 * - the first text's leading U+FEFF is dropped, as iconv-lite's BOM stripping does;
 * - once a chunk is not valid UTF-8, iconv-lite's decoder takes over for the rest of the stream,
 *   fed first the bytes still waiting: from there it is the decoder it would have been all along.
 */
export interface TextDecoderLike {
  write(buf: Buffer): string;
  end(): string | undefined;
}

const EMPTY = Buffer.alloc(0);

/** Bytes at the end of `buf` that start a character it does not finish (0 to 3). */
function cutAtEnd(buf: Buffer): number {
  for (let back = 1; back <= 3 && back <= buf.length; back++) {
    const b = buf[buf.length - back]!;
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const needs = (b & 0xe0) === 0xc0 ? 2 : (b & 0xf0) === 0xe0 ? 3 : (b & 0xf8) === 0xf0 ? 4 : 1;
    return needs > back ? back : 0;
  }
  return 0;
}

class FastUtf8Decoder implements TextDecoderLike {
  private waiting: Buffer = EMPTY;
  private started = false; // a non-empty text was returned (no BOM to strip after it)
  private fallback: iconv.DecoderStream | undefined;

  write(chunk: Buffer): string {
    if (this.fallback) return this.fallback.write(chunk);
    const buf = this.waiting.length ? Buffer.concat([this.waiting, chunk]) : chunk;
    const whole = buf.length - cutAtEnd(buf);
    if (!isUtf8(buf.subarray(0, whole))) return this.handOver(chunk);
    this.waiting = whole < buf.length ? Buffer.from(buf.subarray(whole)) : EMPTY;
    return this.started || whole === 0 ? buf.toString('utf8', 0, whole) : this.first(buf.toString('utf8', 0, whole));
  }

  end(): string | undefined {
    if (this.fallback) return this.fallback.end();
    if (!this.waiting.length) return undefined;
    // A character cut by the end of the stream: iconv-lite's decoder says how it ends.
    const decoder = this.decoder();
    const text = decoder.write(this.waiting);
    return text + (decoder.end() ?? '');
  }

  private first(text: string): string {
    if (!text) return text;
    this.started = true;
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }

  private decoder(): iconv.DecoderStream {
    return iconv.getDecoder('utf-8', { stripBOM: !this.started });
  }

  private handOver(chunk: Buffer): string {
    this.fallback = this.decoder();
    const waiting = this.waiting;
    this.waiting = EMPTY;
    return this.fallback.write(waiting) + this.fallback.write(chunk);
  }
}

/** A stateful decoder of `encoding` that strips a leading BOM: iconv-lite's, or FastUtf8Decoder for UTF-8. */
export function textDecoder(encoding: string): TextDecoderLike {
  return encoding === 'utf-8' ? new FastUtf8Decoder() : iconv.getDecoder(encoding, { stripBOM: true });
}
