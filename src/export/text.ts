import { sanitizeHtml } from '../model/html.ts';
import { memoized } from '../util/memo.ts';
import { decodeEntities } from '../util/entities.ts';
import { compileHtmlToText, type HtmlToTextOptions, type HtmlToTextSelector } from './vendor.ts';

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

// html-to-text converts only what is inside `<body>` when there is one (its default base element),
// so a description with text before or after a `<body>` tag lost that text. A description is a
// fragment of the site's content, not a document: the whole of it is converted.
const WHOLE: HtmlToTextOptions['baseElements'] = { selectors: [], returnDomByDefault: true };

const toPlain = compileHtmlToText({
  wordwrap: false,
  baseElements: WHOLE,
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
  baseElements: WHOLE,
  selectors: [
    ...HEADINGS,
    { selector: 'a', options: { ignoreHref: true } },
    { selector: 'img', format: 'skip' },
  ],
});

/** C0 controls (but tab and line feed) and DEL are not allowed in iCalendar TEXT (RFC 5545 §3.3.11). */
const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

/** Title as plain one-line text: tags stripped, entities decoded, whitespace collapsed. */
export function plainTitle(html: string): string {
  // Titles are nearly always markup-free with a few entities; the full parser costs far more than
  // the rest of a title's rendering, so it runs only when there is markup.
  const text = html.includes('<') ? toInline(html) : decodeEntities(html);
  return text.replace(CONTROLS, '').replace(/\s+/g, ' ').trim();
}

// Occurrences of a recurring series share one description; converting it once per run saves the
// parser's cost (the largest part of rendering an event) for all but the first. Bounded in entries;
// descriptions of any length are kept, since they are what the conversions are for.
const CACHE_MAX = 512;
const plainMemo = memoized(convertPlain, CACHE_MAX, Infinity);

/** Description as plain text: paragraphs and list items on their own lines, links as `text [url]`. */
export function plainText(html: string): string {
  return html.trim() ? plainMemo(html) : '';
}

function convertPlain(html: string): string {
  return (html.includes('<') ? toPlain(html) : decodeEntities(html))
    .replace(CONTROLS, '')
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * HTML for X-ALT-DESC: the site's HTML through the shared sanitizer (src/model/html.ts), minus what
 * iCalendar cannot carry; '' when nothing visible is left. Subscribers' calendar apps render it,
 * and the site stores what its administrators and editors type unfiltered (or what a hostile
 * import or sync left there before it was sanitized), so the feed carries only inert markup,
 * as the imports and the sync send to sites. Cached like plainText: occurrences share it.
 */
export const altHtml = memoized((html: string): string => sanitizeHtml(html).replace(CONTROLS, '').replace(/\r\n?/g, '\n').trim(), CACHE_MAX, Infinity);

/** True when the string holds markup worth an X-ALT-DESC (plain text needs none). */
export function hasMarkup(html: string): boolean {
  return /<[a-z!\/]/i.test(html);
}
