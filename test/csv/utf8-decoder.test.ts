import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { textDecoder } from '../../src/sources/csv/utf8-decoder.ts';
import { prng } from '../../src/util/random.ts';

/** Everything a decoder makes of `bytes` fed in the given cuts, end() included. */
function decodeAll(decoder: { write(b: Buffer): string; end(): string | undefined }, bytes: Buffer, cuts: number[]): string {
  let out = '';
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    out += decoder.write(bytes.subarray(at, cut));
    at = cut;
  }
  return out + (decoder.end() ?? '');
}

// Valid characters of every length, a BOM, U+FFFD itself, and bytes that are no UTF-8: a lone
// continuation byte, a cut character, an overlong form, a surrogate, a lead byte past U+10FFFF.
const PIECES = ['a', ',', '\n', 'é', 'Ł', '東京', '🎉', '\uFEFF', '\uFFFD'].map((s) => Buffer.from(s, 'utf8'));
const BROKEN = [[0x80], [0xe2, 0x82], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf5, 0x80, 0x80, 0x80], [0xff], [0xf0, 0x9f, 0x8e]].map((b) => Buffer.from(b));

describe('UTF-8 decoding without iconv-lite for valid input (utf8-decoder.ts)', () => {
  it('gives what iconv-lite gives, BOM stripping included, for valid and broken UTF-8 cut anywhere', () => {
    for (let seed = 1; seed <= 400; seed++) {
      const rand = prng(seed);
      const parts: Buffer[] = [];
      if (rand() < 0.3) parts.push(Buffer.from('\uFEFF', 'utf8'));
      const broken = seed % 2 === 0;
      for (let i = 0; i < 60; i++) {
        parts.push(broken && rand() < 0.05 ? BROKEN[Math.floor(rand() * BROKEN.length)]! : PIECES[Math.floor(rand() * PIECES.length)]!);
      }
      const bytes = Buffer.concat(parts);
      const cuts = [...new Set(Array.from({ length: Math.floor(rand() * 12) }, () => Math.floor(rand() * bytes.length)))].sort((x, y) => x - y);
      const expected = decodeAll(iconv.getDecoder('utf-8', { stripBOM: true }), bytes, cuts);
      expect(decodeAll(textDecoder('utf-8'), bytes, cuts), `seed ${seed}`).toBe(expected);
    }
  });

  it('other encodings are iconv-lite itself', () => {
    const bytes = iconv.encode('\uFEFFcafé €', 'windows-1252');
    expect(decodeAll(textDecoder('windows-1252'), bytes, [2])).toBe(decodeAll(iconv.getDecoder('windows-1252', { stripBOM: true }), bytes, [2]));
  });
});
