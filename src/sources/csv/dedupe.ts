import { hash } from 'node:crypto';

/** Big-endian 32-bit word of a latin1 digest string at byte `at`. */
function word(digest: string, at: number): number {
  return ((digest.charCodeAt(at) << 24) | (digest.charCodeAt(at + 1) << 16) | (digest.charCodeAt(at + 2) << 8) | digest.charCodeAt(at + 3)) >>> 0;
}

/**
 * "Have we seen this identity, and on which line?" for every row of a file, in ~24 bytes per row:
 * an open-addressing table of 64-bit SHA-256 prefixes and line numbers in typed arrays (a Map of
 * strings costs ~70 bytes per row). The chance that two different identities share 64 bits in a
 * file of a million rows is about 3e-8; if it ever happens the row is reported as a duplicate,
 * with the earlier line, not dropped silently.
 */
export class SeenIdentities {
  private hi = new Uint32Array(1024);
  private lo = new Uint32Array(1024);
  private lines = new Int32Array(1024); // 0 = empty slot (lines are 1-based)
  private count = 0;

  /** The line an identity was first seen on, or undefined (and it is recorded at `line`). */
  firstSeen(identity: string, line: number): number | undefined {
    // One-shot (no Hash object per row), as a 'binary' (latin1) string, one char per byte: a Buffer digest
    // cost twice as much per row, its allocation more than the hashing (profiled: ~9% of a row).
    const digest = hash('sha256', identity, 'binary');
    const hi = word(digest, 0);
    const lo = word(digest, 4);
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
