/**
 * Plain-text DESCRIPTIONs turned into HTML with their line breaks kept, and the test for a DESCRIPTION
 * that already carries HTML. Producer HTML goes through the one sanitizer every source shares
 * (src/model/html.ts); TEXT unescaping itself is the iCalendar grammar's (src/ical/text.ts).
 */

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;'));
}

/** Plain text -> HTML: escaped, each newline a `<br>` (lossless, nothing re-flowed). */
export function plainToHtml(text: string): string {
  return text.split('\n').map(escapeHtml).join('<br>\n');
}

/** Does a plain-text DESCRIPTION actually carry HTML (CMS feeds put markup there)? */
export function looksLikeHtml(text: string): boolean {
  return /<\/?(?:p|br|div|span|a|b|i|u|em|strong|ul|ol|li|h[1-6]|table|tr|td|img|blockquote|font|hr)\b[^>]*>/i.test(text);
}
