import { describe, expect, it } from 'vitest';
import { fnv1a64, SeenIdentities } from '../../src/sources/csv/dedupe.ts';

describe('SeenIdentities', () => {
  it('names the first line of an identity seen again, across table growth and non-ASCII text', () => {
    const seen = new SeenIdentities();
    const id = (i: number) => `Café 東京 🎉 #${i}|2025-03-${(i % 28) + 1} 10:00:00|Europe/Zürich`;
    for (let i = 0; i < 5000; i++) expect(seen.firstSeen(id(i), i + 2)).toBeUndefined();
    for (let i = 0; i < 5000; i += 7) expect(seen.firstSeen(id(i), 9000 + i)).toBe(i + 2);
    expect(seen.firstSeen('café 東京 🎉 #1|2025-03-2 10:00:00|Europe/Zürich', 20000)).toBeUndefined(); // case differs
    expect(seen.firstSeen('', 20001)).toBeUndefined();
    expect(seen.firstSeen('', 20002)).toBe(20001);
  });
});

describe('fnv1a64 (the fingerprint SeenIdentities keeps)', () => {
  const hex = (s: string) => {
    const out = new Uint32Array(2);
    fnv1a64(s, out);
    return out[0]!.toString(16).padStart(8, '0') + out[1]!.toString(16).padStart(8, '0');
  };
  /** The definition, in BigInt arithmetic, over UTF-16 code units. */
  const reference = (s: string) => {
    let h = 0xcbf29ce484222325n;
    for (let i = 0; i < s.length; i++) h = ((h ^ BigInt(s.charCodeAt(i))) * 0x100000001b3n) & 0xffffffffffffffffn;
    return h.toString(16).padStart(16, '0');
  };

  it('gives the published FNV-1a 64 test vectors for ASCII', () => {
    expect(hex('')).toBe('cbf29ce484222325');
    expect(hex('a')).toBe('af63dc4c8601ec8c');
    expect(hex('foobar')).toBe('85944171f73967e8');
  });

  it('matches the definition on long and non-ASCII identities (the 32-bit halves carry exactly)', () => {
    const ids = ['Café 東京 🎉 #1|2025-03-2 10:00:00|Europe/Zürich', '\uffff'.repeat(300), 'x'.repeat(5000), 'Łódź|2025-12-31 23:59:59|UTC'];
    for (let i = 0; i < 200; i++) ids.push(`Event ${i * 7919} ${String.fromCharCode(0x80 + i * 97)}|2025-01-${(i % 28) + 1}`);
    for (const id of ids) expect(hex(id)).toBe(reference(id));
  });
});
