import { compileHtmlToText, type HtmlToTextSelector } from './vendor.ts';

/**
 * Text fields of a VEVENT from the site's HTML. The site returns `title` through `the_title`
 * (entities such as `&#8217;`, sometimes inline tags) and `description` through `the_content`
 * (paragraphs, lists, links, block markup). Calendar apps show DESCRIPTION as plain text, so it is
 * converted with html-to-text; the original HTML goes to X-ALT-DESC for the apps that render it.
 */

const HEADINGS: HtmlToTextSelector[] = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((h) => ({
  selector: h,
  // html-to-text upper-cases headings by default, which reads as shouting in a calendar popup.
  options: { uppercase: false },
}));

const toPlain = compileHtmlToText({
  wordwrap: false,
  selectors: [
    ...HEADINGS,
    { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
    // Images are the featured image's business (ATTACH); inline ones would only add noise.
    { selector: 'img', format: 'skip' },
    { selector: 'table', format: 'dataTable' },
  ],
});

const toInline = compileHtmlToText({
  wordwrap: false,
  selectors: [
    ...HEADINGS,
    { selector: 'a', options: { ignoreHref: true } },
    { selector: 'img', format: 'skip' },
  ],
});

/** C0 controls (but tab and line feed) and DEL are not allowed in iCalendar TEXT (RFC 5545 §3.3.11). */
const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

/** Named entities WordPress titles carry (wptexturize writes the typographic ones as numbers). */
const NAMED: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0', ndash: '–', mdash: '—', hellip: '…',
  lsquo: '‘', rsquo: '’', ldquo: '“', rdquo: '”', laquo: '«', raquo: '»', copy: '©', reg: '®', trade: '™',
};

function codePoint(n: number): string {
  return n > 0 && n <= 0x10ffff && !(n >= 0xd800 && n <= 0xdfff) ? String.fromCodePoint(n) : '\ufffd';
}

/**
 * Entities of a markup-free string, or undefined when it has one this table does not know (the
 * caller then lets the HTML parser decode it). Titles are nearly always markup-free with a few
 * entities, and the full parser costs far more than the rest of a title's rendering.
 */
function decodeSimple(s: string): string | undefined {
  let unknown = false;
  const out = s.replace(/&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z][a-zA-Z0-9]{1,31});/g, (m, body: string) => {
    if (body[0] === '#') return codePoint(body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : Number(body.slice(1)));
    const named = NAMED[body];
    if (named === undefined) unknown = true;
    return named ?? m;
  });
  return unknown ? undefined : out;
}

/** Title as plain one-line text: tags stripped, entities decoded, whitespace collapsed. */
export function plainTitle(html: string): string {
  const text = html.includes('<') ? toInline(html) : html.includes('&') ? (decodeSimple(html) ?? toInline(html)) : html;
  return text.replace(CONTROLS, '').replace(/\s+/g, ' ').trim();
}

// Occurrences of a recurring series share one description; converting it once per run saves the
// parser's cost (the largest part of rendering an event) for all but the first. Bounded.
const plainCache = new Map<string, string>();
const PLAIN_CACHE_MAX = 512;

/** Description as plain text: paragraphs and list items on their own lines, links as `text [url]`. */
export function plainText(html: string): string {
  if (!html.trim()) return '';
  let out = plainCache.get(html);
  if (out === undefined) {
    out = convertPlain(html);
    if (plainCache.size >= PLAIN_CACHE_MAX) plainCache.clear();
    plainCache.set(html, out);
  }
  return out;
}

function convertPlain(html: string): string {
  const simple = html.includes('<') ? undefined : decodeSimple(html);
  return (simple ?? toPlain(html))
    .replace(CONTROLS, '')
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** HTML for X-ALT-DESC: as the site rendered it, minus what iCalendar cannot carry. */
export function altHtml(html: string): string {
  return html.replace(CONTROLS, '').replace(/\r\n?/g, '\n').trim();
}

/** True when the string holds markup worth an X-ALT-DESC (plain text needs none). */
export function hasMarkup(html: string): boolean {
  return /<[a-z!\/]/i.test(html);
}
