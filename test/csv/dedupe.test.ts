import { describe, expect, it } from 'vitest';
import { SeenIdentities } from '../../src/sources/csv/dedupe.ts';

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
