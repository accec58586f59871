import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../src/util/retry-after.ts';

// The one Retry-After reader, shared by the REST client and the feed fetcher.
describe('parseRetryAfter', () => {
  const now = Date.parse('2030-01-01T00:00:00Z');
  const table: [string, string | string[] | undefined, number | undefined][] = [
    ['delta-seconds', '3', 3000],
    ['zero seconds', '0', 0],
    ['seconds with surrounding blanks', '  7 ', 7000],
    ['first of repeated headers', ['2', '9'], 2000],
    ['IMF-fixdate in the future', 'Tue, 01 Jan 2030 00:00:05 GMT', 5000],
    ['RFC 850 date', 'Tuesday, 01-Jan-30 00:00:10 GMT', 10000],
    ['asctime date', 'Tue Jan  1 00:00:20 2030', 20000],
    ['date in the past is "now"', 'Mon, 31 Dec 2029 00:00:00 GMT', 0],
    ['absent', undefined, undefined],
    ['empty', '', undefined],
    ['garbage word', 'soon', undefined],
    ['garbage with a weekday prefix', 'Mon, whenever', undefined],
    ['fractional seconds', '3.5', undefined],
    ['exponent', '1e3', undefined],
    ['huge delta is clamped, not Infinity', '9'.repeat(400), Number.MAX_SAFE_INTEGER],
    ['large but exact delta', '86400', 86_400_000],
  ];
  for (const [what, value, expected] of table) {
    it(`${what}: ${JSON.stringify(value)} → ${expected}`, () => {
      expect(parseRetryAfter(value, now)).toBe(expected);
    });
  }

  it('regression: a negative Retry-After ("-5") was read by Date.parse as a 2001 date (retry at once) instead of being ignored', () => {
    expect(parseRetryAfter('-5', now)).toBeUndefined();
  });
});
