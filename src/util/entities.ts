/** WordPress runs titles and term names through filters that encode HTML entities; compare and write back the text. */
export function decodeEntities(s: string): string {
  return s
    .replace(/&#(\d+);/g, (_, n) => String.fromCodePoint(Number(n)))
    .replace(/&#x([0-9a-f]+);/gi, (_, n) => String.fromCodePoint(parseInt(n, 16)))
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&nbsp;/g, '\u00a0')
    .replace(/&amp;/g, '&');
}

/** A term or venue name as a comparison key: entities decoded, whitespace folded, case folded. */
export function nameKey(name: string): string {
  return decodeEntities(name).trim().replace(/\s+/g, ' ').toLowerCase();
}
