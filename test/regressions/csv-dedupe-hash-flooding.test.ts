// A CSV file is untrusted input. Its duplicate check (SeenIdentities) once placed each row's
// identity at the slot named by the low bits of its standard FNV-1a 64 fingerprint, so a file
// could be written whose rows all start at one slot: linear probing then costs n²/2 probes, a
// quadratic read of a linear-size file. Each table now hashes from a random basis and chooses
// slots through a keyed mix.
import { describe, expect, it } from 'vitest';
import { fnv1a64, SeenIdentities } from '../../src/sources/csv/dedupe.ts';

const LOW_BITS = 16;
const MASK = (1 << LOW_BITS) - 1;
/** 0x1b3's inverse modulo 2^16 (0x1b3 is odd, so it has one). */
const PRIME_INV = (() => {
  for (let x = 1; x <= MASK; x += 2) if (((x * 0x1b3) & MASK) === 1) return x;
  throw new Error('no inverse');
})();

/**
 * `n` distinct identities whose standard FNV-1a 64 fingerprints share their low 16 bits: the last
 * code unit of each is solved for (the low bits of ((lo ^ c) · prime) depend only on the low bits
 * of lo ^ c).
 */
function craftedIdentities(n: number, target = 0x5a5a): string[] {
  const out: string[] = [];
  const print = new Uint32Array(2);
  const want = (target * PRIME_INV) & MASK;
  for (let i = 0; i < n; i++) {
    const prefix = `Concert ${i}|2025-06-01 20:00:00|Europe/Berlin|`;
    fnv1a64(prefix, print);
    out.push(prefix + String.fromCharCode((print[1]! ^ want) & MASK));
  }
  return out;
}

describe('regression: csv dedupe hash flooding', () => {
  it('the crafted identities do share their low 16 bits under the standard basis (the attack is real)', () => {
    const print = new Uint32Array(2);
    const lows = new Set(craftedIdentities(500).map((id) => (fnv1a64(id, print), print[1]! & MASK)));
    expect(lows).toEqual(new Set([0x5a5a]));
  });

  it('a file of rows crafted to collide costs linear probing, not quadratic', () => {
    const n = 20_000;
    const seen = new SeenIdentities();
    craftedIdentities(n).forEach((id, i) => expect(seen.firstSeen(id, i + 2)).toBeUndefined());
    // A table at most half full averages well under one extra probe per insert; one cluster of n
    // rows would cost about n²/2 = 2e8.
    expect(seen.extraProbes).toBeLessThan(4 * n);
  });

});
