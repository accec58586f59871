import { decodeHTML } from 'entities';

/**
 * The one HTML entity decoder. WordPress runs titles and term names through filters that encode
 * HTML entities; compare and write back the text. `entities` decodes as a browser does (every
 * named entity, numeric references with or without `;`), and never throws: a reference past
 * U+10FFFF, a surrogate or zero becomes U+FFFD.
 */
export function decodeEntities(s: string): string {
  return s.includes('&') ? decodeHTML(s) : s;
}

/** A term or venue name as a comparison key: entities decoded, whitespace folded, case folded. */
export function nameKey(name: string): string {
  return decodeEntities(name).trim().replace(/\s+/g, ' ').toLowerCase();
}
