/**
 * The one byte-level encoding sniffer, shared by the CSV decoder (src/sources/csv/decode.ts) and
 * the ICS decoder (src/sources/ics/decode.ts): byte-order marks, UTF-16/32 without a BOM told by
 * where the NUL bytes fall, and UTF-8 validity. What each format does next (chardet for CSV,
 * declared CHARSET and per-line repair for ICS) stays with its decoder.
 */

export type WideEncoding = 'utf-16le' | 'utf-16be' | 'utf-32le' | 'utf-32be';
export type BomEncoding = 'utf-8' | WideEncoding;

/** How many leading bytes the NUL-pattern heuristic looks at. */
const NUL_SAMPLE = 4096;

/** The encoding named by a byte-order mark at the start, if any (UTF-32 LE before UTF-16 LE: FF FE 00 00). */
export function bomEncoding(b: Uint8Array): BomEncoding | undefined {
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xfe && b[2] === 0 && b[3] === 0) return 'utf-32le';
  if (b.length >= 4 && b[0] === 0 && b[1] === 0 && b[2] === 0xfe && b[3] === 0xff) return 'utf-32be';
  if (b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return 'utf-8';
  if (b.length >= 2 && b[0] === 0xff && b[1] === 0xfe) return 'utf-16le';
  if (b.length >= 2 && b[0] === 0xfe && b[1] === 0xff) return 'utf-16be';
  return undefined;
}

/**
 * UTF-16/32 without a BOM: mostly-ASCII text leaves NUL bytes in a fixed pattern. ASCII text in
 * UTF-32LE reads "X 0 0 0", in UTF-16LE "X 0 X 0"; UTF-8 and single-byte text have next to none.
 */
export function nulPattern(b: Uint8Array): WideEncoding | undefined {
  const n = Math.min(b.length, NUL_SAMPLE) & ~3;
  if (n < 4) return undefined;
  const zeros = [0, 0, 0, 0];
  for (let i = 0; i < n; i++) if (b[i] === 0) zeros[i & 3]!++;
  const [z0, z1, z2, z3] = zeros as [number, number, number, number];
  const q = n / 4;
  if (z1 > q * 0.9 && z2 > q * 0.9 && z3 > q * 0.9 && z0 < q * 0.1) return 'utf-32le';
  if (z0 > q * 0.9 && z1 > q * 0.9 && z2 > q * 0.9 && z3 < q * 0.1) return 'utf-32be';
  const even = z0 + z2;
  const odd = z1 + z3;
  if (odd > n * 0.3 && even < n * 0.05) return 'utf-16le';
  if (even > n * 0.3 && odd < n * 0.05) return 'utf-16be';
  return undefined;
}

/** A UTF-16/32 encoding: from its BOM, else from the NUL pattern (after a UTF-8 BOM too: the caller strips it). */
export function sniffWide(b: Uint8Array): WideEncoding | undefined {
  const bom = bomEncoding(b);
  if (bom && bom !== 'utf-8') return bom;
  return nulPattern(b);
}

export function isAscii(b: Uint8Array): boolean {
  for (let i = 0; i < b.length; i++) if (b[i]! > 0x7f) return false;
  return true;
}

/** Valid UTF-8, tolerating a character cut at the end (a sample taken from a longer stream). */
export function isValidUtf8Prefix(b: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(b, { stream: true });
    return true;
  } catch {
    return false;
  }
}
