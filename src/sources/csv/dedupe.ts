import { randomFillSync } from 'node:crypto';

const TWO_32 = 4294967296;
/** FNV-1a 64's standard offset basis, as [high, low] halves. */
export const FNV_BASIS: readonly [number, number] = [0xcbf29ce4, 0x84222325];
/** FNV-1a's 64-bit prime is 2^40 + 0x1b3: a product is h * 0x1b3 plus h shifted left by 40. */
const PRIME_LOW = 0x1b3;

/**
 * FNV-1a, 64-bit (prime 0x100000001b3; offset basis `basis`, by default the standard one), over the
 * string's UTF-16 code units, in two 32-bit halves written to `out` ([high, low]); for ASCII with the
 * standard basis it is FNV-1a 64 of the bytes (test/csv/dedupe.test.ts holds it to the published vectors).
 * Chosen over node:crypto's SHA-256 for its cost: a digest call cost ~1.2 µs of a row's ~17 µs
 * whatever the length (OpenSSL's per-call setup), this ~0.2 µs; a fingerprint for a table of the
 * rows of one file needs no cryptographic strength (see SeenIdentities for what a collision does).
 */
export function fnv1a64(s: string, out: Uint32Array, basis: ArrayLike<number> = FNV_BASIS): void {
  let hi = basis[0]!;
  let lo = basis[1]!;
  for (let i = 0; i < s.length; i++) {
    lo = (lo ^ s.charCodeAt(i)) >>> 0;
    const t = lo * PRIME_LOW; // < 2^41: exact
    hi = (hi * PRIME_LOW + ((t / TWO_32) | 0) + (lo << 8)) >>> 0;
    lo = t >>> 0;
  }
  out[0] = hi;
  out[1] = lo;
}

/**
 * "Have we seen this identity, and on which line?" for every row of a file, in ~24 bytes per row:
 * an open-addressing table of 64-bit FNV-1a fingerprints and line numbers in typed arrays (a Map
 * of strings costs ~70 bytes per row). The chance that two different identities share 64 bits in
 * a file of a million rows is about 3e-8 for identities that are not made to collide; if it ever
 * happens the row is reported as a duplicate, with the earlier line, not dropped silently.
 *
 * The file is untrusted, and FNV is not a keyed hash: with the standard basis and the fingerprint's
 * low bits as the slot, a file can be written whose rows all start at one slot, and linear probing
 * turns that into quadratic time. So each table hashes from a random basis and picks slots through
 * a keyed mix of all 64 bits (test/regressions/csv-dedupe-hash-flooding.test.ts).
 */
export class SeenIdentities {
  private hi = new Uint32Array(1024);
  private lo = new Uint32Array(1024);
  private lines = new Int32Array(1024); // 0 = empty slot (lines are 1-based)
  private count = 0;
  /** Slots tried past the first, over the table's life: linear in the rows unless slots cluster. */
  extraProbes = 0;
  private readonly print = new Uint32Array(2);
  /** [basis high, basis low, slot key 1, slot key 2]: random per table. */
  private readonly key = randomFillSync(new Uint32Array(4));

  /** The line an identity was first seen on, or undefined (and it is recorded at `line`). */
  firstSeen(identity: string, line: number): number | undefined {
    fnv1a64(identity, this.print, this.key);
    const hi = this.print[0]!;
    const lo = this.print[1]!;
    const found = this.find(hi, lo);
    if (this.lines[found]) return this.lines[found];
    this.hi[found] = hi;
    this.lo[found] = lo;
    this.lines[found] = line;
    if (++this.count * 2 > this.lines.length) this.grow();
    return undefined;
  }

  /** The first slot a fingerprint tries: murmur3's 32-bit finalizer over both halves and the table's key. */
  slotOf(hi: number, lo: number): number {
    let h = Math.imul((lo ^ this.key[2]!) >>> 0, 0xcc9e2d51) ^ Math.imul(((hi ^ this.key[3]!) << 15) | ((hi ^ this.key[3]!) >>> 17), 0x1b873593);
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
    return h & (this.lines.length - 1);
  }

  private find(hi: number, lo: number): number {
    const mask = this.lines.length - 1;
    let i = this.slotOf(hi, lo);
    while (this.lines[i] && (this.hi[i] !== hi || this.lo[i] !== lo)) {
      i = (i + 1) & mask;
      this.extraProbes++;
    }
    return i;
  }

  private grow(): void {
    const { hi, lo, lines } = this;
    this.hi = new Uint32Array(lines.length * 2);
    this.lo = new Uint32Array(lines.length * 2);
    this.lines = new Int32Array(lines.length * 2);
    for (let i = 0; i < lines.length; i++) {
      if (!lines[i]) continue;
      const slot = this.find(hi[i]!, lo[i]!);
      this.hi[slot] = hi[i]!;
      this.lo[slot] = lo[i]!;
      this.lines[slot] = lines[i]!;
    }
  }
}
