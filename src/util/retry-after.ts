/**
 * `Retry-After` (RFC 9110 §10.2.3) as milliseconds from now, for the REST client (src/api) and
 * the feed fetcher (src/sources/fetch) alike. The header is delay-seconds (digits only) or an
 * HTTP-date; anything else is unreadable and gives undefined, so the caller falls back to its
 * own backoff. A date in the past is 0 (go now); a delay too large for exact arithmetic is
 * clamped (the callers give up on a wait past their deadline anyway).
 */
export function parseRetryAfter(value: string | readonly string[] | undefined, now: number = Date.now()): number | undefined {
  const raw = typeof value === 'string' ? value : value?.[0];
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1000, Number.MAX_SAFE_INTEGER);
  // All three HTTP-date forms (IMF-fixdate, RFC 850, asctime) open with the day name. Checking
  // it keeps V8's lenient Date.parse from reading "-5" or "3.5" as a date in 2001.
  if (!HTTP_DATE_START.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

const HTTP_DATE_START = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,?\s/;
