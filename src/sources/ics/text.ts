/**
 * Plain-text DESCRIPTIONs turned into HTML with their line breaks kept, and the test for a DESCRIPTION
 * that already carries HTML. Producer HTML goes through the one sanitizer every source shares
 * (src/model/html.ts); TEXT unescaping itself is the iCalendar grammar's (src/ical/text.ts).
 *
 * The helpers here run once per VEVENT of a big feed, and most values need no change at all: each
 * one tests first and returns its input untouched then (a regex replace or a split/join builds a new
 * string even when nothing is replaced, and every one of those lives as long as the drafts do).
 */

const HTML_SPECIAL = /[&<>"]/;

export function escapeHtml(s: string): string {
  if (!HTML_SPECIAL.test(s)) return s;
  return s.replace(/[&<>"]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;'));
}

/** Plain text -> HTML: escaped, each newline a `<br>` (lossless, nothing re-flowed). */
export function plainToHtml(text: string): string {
  if (!text.includes('\n')) return escapeHtml(text);
  return text.split('\n').map(escapeHtml).join('<br>\n');
}

/** Does a plain-text DESCRIPTION actually carry HTML (CMS feeds put markup there)? */
export function looksLikeHtml(text: string): boolean {
  return /<\/?(?:p|br|div|span|a|b|i|u|em|strong|ul|ol|li|h[1-6]|table|tr|td|img|blockquote|font|hr)\b[^>]*>/i.test(text);
}

/**
 * A character past U+00FF. Text without one is already in NFC: no character up to U+00FF decomposes
 * to anything but itself and recomposes, and every combining mark lies past U+00FF (checked for all
 * pairs of them in test/ics/text-fast-paths.test.ts). `normalize` itself always runs ICU over the whole string.
 */
const PAST_LATIN1 = /[^\x00-\xff]/;

/** `s.normalize('NFC')`, without the call for text that cannot change. */
export function nfc(s: string): string {
  return PAST_LATIN1.test(s) ? s.normalize('NFC') : s;
}

/**
 * Whitespace other than single spaces: a tab, a line break, two in a row, or any of the other
 * characters `\s` matches.
 */
const NOT_SINGLE_SPACES = /[^\S ]|\s\s/;

/** `s.replace(/\s+/g, ' ').trim()`, without the copy for text whose whitespace is single spaces already. */
export function collapseSpaces(s: string): string {
  return (NOT_SINGLE_SPACES.test(s) ? s.replace(/\s+/g, ' ') : s).trim();
}
