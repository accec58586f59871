import { isAscii, isUtf8, transcode } from 'node:buffer';
import iconv from 'iconv-lite';
import { sniffWide, type WideEncoding as Wide } from '../text/sniff.ts';

/**
 * Bytes -> text for ICS feeds as they exist in the wild: UTF-8 with zero, one or several BOMs, UTF-16/32
 * with or without BOM, and legacy single-byte files (Latin-1 / Windows-1252) written by old clients.
 *
 * Line structure is preserved exactly (no unfolding here), so callers can still report physical line
 * numbers. The one byte-level change: a fold that splits a multi-byte UTF-8 character (RFC 5545 folds at
 * 75 OCTETS, so conforming writers do this) is moved behind the character, which keeps the unfolded text
 * identical while making the bytes valid UTF-8.
 */
export interface DecodedIcs {
  text: string;
  /** What was detected: `utf-8`, `utf-16le`, `utf-16be`, `utf-32le`, `utf-32be`, `windows-1252`,
   * `utf-8+windows-1252` (valid UTF-8 lines kept, others read as Windows-1252) or a declared CHARSET. */
  encoding: string;
}

const utf8Strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const utf8Loose = new TextDecoder('utf-8', { ignoreBOM: true });

export function decodeIcs(bytes: Uint8Array): DecodedIcs {
  const wide = sniffWide(bytes);
  if (wide) return { text: stripBoms(decodeWide(bytes, wide)), encoding: wide };

  const latin1 = utf8AsLatin1(bytes);
  if (latin1 !== undefined) return { text: latin1, encoding: 'utf-8' };
  let utf8 = tryUtf8(bytes);
  if (utf8 !== undefined) return { text: stripBoms(utf8), encoding: 'utf-8' };
  const repaired = repairSplitFolds(bytes);
  if (repaired) {
    utf8 = tryUtf8(repaired);
    if (utf8 !== undefined) return { text: stripBoms(utf8), encoding: 'utf-8' };
    bytes = repaired;
  }

  const declared = declaredCharset(bytes);
  if (declared) return { text: stripBoms(iconv.decode(Buffer.from(bytes), declared)), encoding: declared };

  // Mostly UTF-8 with a few stray bytes (files concatenated from several sources): keep each valid UTF-8
  // line, read the others as Windows-1252. A file with no multi-byte sequence at all is plain legacy.
  const { validMulti, invalid } = utf8Stats(bytes);
  if (validMulti > 0 && validMulti >= invalid) {
    return { text: stripBoms(decodeLineByLine(bytes)), encoding: 'utf-8+windows-1252' };
  }
  // Windows-1252 rather than ISO-8859-1: identical for letters, and it maps 0x80-0x9F to the quotes and
  // dashes Windows software writes instead of control characters.
  return { text: stripBoms(iconv.decode(Buffer.from(bytes), 'windows-1252')), encoding: 'windows-1252' };
}

function decodeWide(b: Uint8Array, enc: Wide): string {
  if (enc === 'utf-16le' || enc === 'utf-16be') return new TextDecoder(enc, { ignoreBOM: true }).decode(b);
  return iconv.decode(Buffer.from(b), enc === 'utf-32le' ? 'utf32le' : 'utf32be');
}

/**
 * Valid UTF-8 whose characters all lie in U+0000..U+00FF (ASCII plus the Latin-1 letters of most
 * European feeds) becomes a one-byte string: V8 stores such strings at one byte per character instead of
 * two, and every value sliced, unescaped or joined from it stays one-byte, which halves the memory of the
 * text, the component tree and the drafts of a big feed (the UTF-8 decoders always make two-byte text).
 * Anything else (another lead byte, a broken sequence, a BOM after the start) returns undefined and takes
 * the general path; the result is the same text the UTF-8 decoder gives, leading BOMs removed as
 * stripBoms does.
 *
 * The checks and the conversion are native (simdutf's validation, ICU's converter, a count of two lead
 * bytes): a byte loop here was 6% of parsing the bench's 20 MB feed, and a regex over the whole file
 * read as Latin-1 (a second 20 MB string) a third of what is left.
 */
function utf8AsLatin1(b: Uint8Array): string | undefined {
  let start = 0;
  while (start + 2 < b.length && b[start] === 0xef && b[start + 1] === 0xbb && b[start + 2] === 0xbf) start += 3;
  const rest = Buffer.from(b.buffer, b.byteOffset + start, b.length - start);
  if (isAscii(rest)) return rest.toString('latin1');
  if (!isUtf8(rest)) return undefined;
  // In valid UTF-8, U+0080..U+00FF are the two-byte characters led by 0xC2 or 0xC3 (those bytes lead
  // nothing else and are never continuation bytes): with no wider character, the Latin-1 form is
  // exactly one byte shorter per such lead. A wider character (2 to 4 bytes) becomes at most one byte
  // ('?', or nothing for a BOM), so the converted length falls short of that whenever there is one.
  const latin1 = transcode(rest, 'utf8', 'latin1');
  if (latin1.length !== rest.length - countByte(rest, 0xc2) - countByte(rest, 0xc3)) return undefined;
  return latin1.toString('latin1');
}

/** How many times `byte` occurs in `b` (native search: a byte loop here was slower than the whole check). */
function countByte(b: Buffer, byte: number): number {
  let n = 0;
  for (let i = b.indexOf(byte); i >= 0; i = b.indexOf(byte, i + 1)) n++;
  return n;
}

function tryUtf8(b: Uint8Array): string | undefined {
  try {
    return utf8Strict.decode(b);
  } catch {
    return undefined;
  }
}

/** Any number of leading BOMs (some tools prepend one per save) plus BOMs glued to later lines. */
function stripBoms(text: string): string {
  let s = text.replace(/^\uFEFF+/, '');
  if (s.includes('\uFEFF')) s = s.replace(/(^|\n)\uFEFF+/g, '$1');
  return s;
}

function isCont(x: number | undefined): boolean {
  return x !== undefined && (x & 0xc0) === 0x80;
}

/**
 * Move the continuation bytes of a UTF-8 character that a fold (CRLF/LF + SP/TAB) split, so they sit
 * before the fold. Returns undefined when nothing was moved. Length and line count stay the same.
 */
export function repairSplitFolds(bytes: Uint8Array): Uint8Array | undefined {
  let out: Uint8Array | undefined;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] !== 0x0a) continue;
    const ws = bytes[i + 1];
    if (ws !== 0x20 && ws !== 0x09) continue;
    const breakStart = i > 0 && bytes[i - 1] === 0x0d ? i - 1 : i;
    // Find the lead byte of the last character before the line break.
    let j = breakStart - 1;
    let have = 0;
    while (j >= 0 && isCont(bytes[j]) && have < 3) {
      j--;
      have++;
    }
    const lead = bytes[j];
    if (j < 0 || lead === undefined || lead < 0xc2) continue;
    const need = lead >= 0xf0 ? 3 : lead >= 0xe0 ? 2 : 1;
    const missing = need - have;
    if (missing <= 0) continue;
    const contStart = i + 2;
    let k = 0;
    while (k < missing && isCont(bytes[contStart + k])) k++;
    if (k !== missing) continue;
    out ??= bytes.slice();
    // [breakStart .. contStart) is the fold, [contStart .. contStart+missing) the stray continuation bytes.
    const fold = out.slice(breakStart, contStart);
    out.set(out.slice(contStart, contStart + missing), breakStart);
    out.set(fold, breakStart + missing);
    i = contStart + missing - 1;
  }
  return out;
}

function utf8Stats(b: Uint8Array): { validMulti: number; invalid: number } {
  let validMulti = 0;
  let invalid = 0;
  for (let i = 0; i < b.length; i++) {
    const c = b[i];
    if (c < 0x80) continue;
    const need = c >= 0xf0 && c <= 0xf4 ? 3 : c >= 0xe0 ? 2 : c >= 0xc2 && c < 0xe0 ? 1 : -1;
    if (need < 0 || c > 0xf4) {
      invalid++;
      continue;
    }
    let ok = true;
    for (let k = 1; k <= need; k++) if (!isCont(b[i + k])) ok = false;
    if (ok) {
      validMulti++;
      i += need;
    } else invalid++;
  }
  return { validMulti, invalid };
}

function decodeLineByLine(b: Uint8Array): string {
  const parts: string[] = [];
  let start = 0;
  for (let i = 0; i <= b.length; i++) {
    if (i === b.length || b[i] === 0x0a) {
      const line = b.subarray(start, i === b.length ? i : i + 1);
      parts.push(tryUtf8(line) ?? iconv.decode(Buffer.from(line), 'windows-1252'));
      start = i + 1;
    }
  }
  return parts.join('');
}

/** vCalendar 1.0 writers declare `CHARSET=...` on properties; honour it when iconv knows it (not UTF-8). */
function declaredCharset(b: Uint8Array): string | undefined {
  const head = utf8Loose.decode(b.subarray(0, Math.min(b.length, 65_536)));
  const m = /;CHARSET=("?)([A-Za-z0-9_.:-]+)\1/i.exec(head);
  if (!m) return undefined;
  const cs = m[2].toLowerCase();
  if (cs === 'utf-8' || cs === 'utf8' || !iconv.encodingExists(cs)) return undefined;
  return cs;
}
