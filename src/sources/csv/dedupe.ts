const TWO_32 = 4294967296;
/** FNV-1a's 64-bit prime is 2^40 + 0x1b3: a product is h * 0x1b3 plus h shifted left by 40. */
const PRIME_LOW = 0x1b3;

/**
 * FNV-1a, 64-bit (offset basis 0xcbf29ce484222325, prime 0x100000001b3), over the string's UTF-16
 * code units, in two 32-bit halves written to `out` ([high, low]); for ASCII it is the standard
 * FNV-1a 64 of the bytes (test/csv/dedupe.test.ts holds it to the published test vectors).
 * Chosen over node:crypto's SHA-256 for its cost: a digest call cost ~1.2 µs of a row's ~17 µs
 * whatever the length (OpenSSL's per-call setup), this ~0.2 µs; a fingerprint for a table of the
 * rows of one file needs no cryptographic strength (see SeenIdentities for what a collision does).
 */
export function fnv1a64(s: string, out: Uint32Array): void {
  let hi = 0xcbf29ce4;
  let lo = 0x84222325;
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
 */
export class SeenIdentities {
  private hi = new Uint32Array(1024);
  private lo = new Uint32Array(1024);
  private lines = new Int32Array(1024); // 0 = empty slot (lines are 1-based)
  private count = 0;
  private readonly print = new Uint32Array(2);

  /** The line an identity was first seen on, or undefined (and it is recorded at `line`). */
  firstSeen(identity: string, line: number): number | undefined {
    fnv1a64(identity, this.print);
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

  private find(hi: number, lo: number): number {
    const mask = this.lines.length - 1;
    let i = lo & mask;
    while (this.lines[i] && (this.hi[i] !== hi || this.lo[i] !== lo)) i = (i + 1) & mask;
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
