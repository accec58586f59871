import iconv from 'iconv-lite';

/**
 * TEXT values: RFC 5545 unescaping (after unfolding, so an escape split by a fold is whole again),
 * comma lists with escaped commas, and QUOTED-PRINTABLE (vCalendar 1.0 relic still written by Drupal
 * and GoToMeeting). Writing TEXT is ical-generator's `escape` (the export and the test-feed generator
 * both use it), so this module only reads.
 */

const ESCAPES: Record<string, string> = { n: '\n', N: '\n', '\\': '\\', ';': ';', ',': ',', ':': ':', '"': '"', "'": "'" };

/**
 * `\n`/`\N` -> newline, `\\` `\;` `\,` -> the character; also the invalid-but-meant `\:` and `\"`.
 * Pieces are joined once (a flat string): appending them one by one left a rope of pieces per value,
 * several times the size of the text, alive for as long as the event is.
 */
export function unescapeText(value: string): string {
  let at = value.indexOf('\\');
  if (at < 0) return value;
  const parts: string[] = [];
  let last = 0;
  while (at >= 0 && at < value.length - 1) {
    const rep = ESCAPES[value[at + 1]];
    if (rep !== undefined) {
      parts.push(value.slice(last, at), rep);
      last = at + 2;
      at = value.indexOf('\\', last);
    } else at = value.indexOf('\\', at + 1);
  }
  parts.push(value.slice(last));
  return parts.join('');
}

/** Split a TEXT list on unescaped commas (CATEGORIES, RESOURCES), then unescape each item. */
export function splitTextList(value: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 92 && i + 1 < value.length) i++; // `\x` is never a separator
    else if (c === 44) {
      out.push(value.slice(start, i));
      start = i + 1;
    }
  }
  out.push(value.slice(start));
  return out.map(unescapeText);
}

/** QUOTED-PRINTABLE -> text. Non-ASCII characters already in the string (plain UTF-8 mislabelled as QP) survive. */
export function decodeQuotedPrintable(value: string, charset = 'utf-8'): string {
  if (!/=[0-9A-Fa-f]{2}|=$/.test(value)) return value;
  const bytes: number[] = [];
  const enc = new TextEncoder();
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === '=' && /^[0-9A-Fa-f]{2}$/.test(value.slice(i + 1, i + 3))) {
      bytes.push(parseInt(value.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (c === '=' && i === value.length - 1) {
      // soft break at the very end
    } else {
      for (const b of enc.encode(c)) bytes.push(b);
    }
  }
  const buf = Buffer.from(bytes);
  const cs = charset.toLowerCase();
  if (cs !== 'utf-8' && cs !== 'utf8' && iconv.encodingExists(cs)) return iconv.decode(buf, cs);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(buf);
  } catch {
    return iconv.decode(buf, 'windows-1252');
  }
}
