import sanitize from 'sanitize-html';
import { decodeEntities } from '../util/entities.ts';
import { memoized } from '../util/memo.ts';

/**
 * The one HTML sanitizer for everything calsync sends to a site, whatever the source (ICS, CSV,
 * another site). WordPress stores post HTML unfiltered for administrators and editors
 * (`unfiltered_html`), so what leaves here is what visitors' browsers run: it must be inert.
 *
 * Built on sanitize-html (htmlparser2 underneath): a real parser decodes entities and control
 * characters the way a browser does BEFORE the URL scheme is judged, which is what the
 * hand-written regex sanitizers got wrong (`javascript&#x3a;`, `java&Tab;script:`,
 * `&#106;avascript:` all reached the site). DOMPurify would need a whole DOM (jsdom) in the worker
 * for the same result; sanitize-html needs none.
 *
 * Policy (an allowlist; anything not named is dropped):
 * - tags: common formatting, lists, tables, links and images; script/style/iframe/svg/... are
 *   dropped WITH their content, every other unknown tag is dropped keeping its text;
 * - attributes: links `href` `title`, images `src` `alt` `title` `width` `height`, list/table
 *   numbering; never `on*`, `style`, `class`, `id`;
 * - URL schemes: http, https, mailto, tel for links; http, https for images; relative URLs stay.
 */

/** Elements whose content is never text a reader should see (or is code). */
const DROP_WITH_CONTENT = [
  'script', 'style', 'head', 'title', 'iframe', 'frame', 'frameset', 'object', 'embed', 'applet', 'noscript', 'noembed',
  'template', 'svg', 'math', 'textarea', 'select', 'option', 'xml', 'xmp', 'plaintext', 'noframes',
];

const OPTIONS: sanitize.IOptions = {
  allowedTags: [
    'p', 'br', 'hr', 'b', 'strong', 'i', 'em', 'u', 's', 'del', 'ins', 'sub', 'sup', 'small', 'span', 'div',
    'blockquote', 'pre', 'code', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'li', 'dl', 'dt', 'dd',
    'table', 'thead', 'tbody', 'tfoot', 'tr', 'td', 'th', 'a', 'img',
  ],
  allowedAttributes: {
    a: ['href', 'title'],
    img: ['src', 'alt', 'title', 'width', 'height'],
    ol: ['start'],
    td: ['colspan', 'rowspan'],
    th: ['colspan', 'rowspan'],
  },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowedSchemesByTag: { img: ['http', 'https'] },
  allowedSchemesAppliedToAttributes: ['href', 'src'],
  allowProtocolRelative: true,
  disallowedTagsMode: 'discard',
  nonTextTags: DROP_WITH_CONTENT,
  // An image whose only source was refused is nothing but a broken-image icon.
  exclusiveFilter: (frame) => frame.tag === 'img' && !frame.attribs.src,
};

const TEXT_ONLY: sanitize.IOptions = {
  allowedTags: [],
  allowedAttributes: {},
  disallowedTagsMode: 'discard',
  nonTextTags: DROP_WITH_CONTENT,
};

const MARKUP_OR_ENTITY = /[<&]/;

// Both sanitizers are pure functions of their input, and in a file the same short values come back
// on every row (category and tag names, venue and organizer names and addresses, "Food & Drink"):
// each is parsed once per run of values, not once per row (memoized: bounded, src/util/memo.ts).

/**
 * What sanitize-html makes of text with no `<` and no `&`, without parsing it: such text is one
 * text node (no tag, comment or entity can start without one of those two characters), which
 * sanitize-html re-escapes with `&`, `<`, `>` only (`escapeHtml`, quotes untouched), leaving
 * whitespace, newlines and control characters as they are. Most CSV/ICS descriptions are plain
 * text, and parsing them cost ~12 KB and a good share of a CSV row's time. Proved equal to the
 * parser's result by test/security/html-sanitizer-fast-path.test.ts (table + randomized).
 */
export function inertText(text: string): string {
  return text.includes('>') ? text.replace(/>/g, '&gt;') : text;
}

/**
 * Untrusted HTML -> HTML safe to store as a post body. Returns '' when nothing visible is left
 * (markup, comments and non-breaking spaces only), so callers can fall back or omit the field.
 */
export function sanitizeHtml(html: string): string {
  return visibleOrEmpty(MARKUP_OR_ENTITY.test(html) ? parsedHtmlMemo(html) : inertText(html));
}

/** sanitize-html with the policy above, always parsing: the reference the fast path is held to. */
export function parsedHtml(html: string): string {
  return sanitize(html, OPTIONS);
}

const parsedHtmlMemo = memoized(parsedHtml);

/** Markup, an entity or a non-breaking space: without any, text trimmed is all visible. */
const MAYBE_INVISIBLE = /[<&\u00a0]/;

function visibleOrEmpty(sanitized: string): string {
  const out = sanitized.trim();
  if (!MAYBE_INVISIBLE.test(out)) return out; // both replaces below would leave it as it is ('' stays '')
  const visible = out.replace(/<(?!img)[^>]*>/g, '').replace(/&nbsp;|\u00a0/g, ' ').trim();
  return visible || /<img /.test(out) ? out : '';
}

/**
 * Untrusted text (a title, a venue or organizer name, an address, a cost) -> plain text: markup
 * stripped by the same parser (script/style content dropped with it), entities decoded exactly
 * once. The site shows these fields as HTML, so a `<` that would open a tag after decoding (the
 * input spelled it `&lt;script&gt;`) stays encoded: decoding once must not create markup.
 */
export function plainText(text: string): string {
  return MARKUP_OR_ENTITY.test(text) ? parsedTextMemo(text) : text;
}

const parsedTextMemo = memoized((text) => decodeEntities(sanitize(text, TEXT_ONLY)).replace(/<(?=[a-zA-Z!/?])/g, '&lt;'));

const HTTP_SCHEME = /^https?:/i;

// A source that checks a link as it reads it (a CSV row, src/sources/csv/row.ts) and the draft's
// cleaning (src/model/clean.ts) ask about the same string one after the other: the last answer
// is kept, so each link is parsed once (URL.canParse was ~4% of a CSV row's time, twice over).
let lastUrl: string | undefined;
let lastParses = false;

function parsesAsUrl(v: string): boolean {
  if (v !== lastUrl) {
    lastUrl = v;
    lastParses = URL.canParse(v);
  }
  return lastParses;
}

/** A link field (event, venue or organizer website): an absolute http(s) URL, or nothing. */
export function webUrl(url: string | undefined): string | undefined {
  const v = url?.trim();
  if (!v) return undefined;
  // Spelled http: or https:, a link that parses has that scheme: no URL object needed (building
  // one cost more than the parse). Anything else is parsed for its scheme.
  if (HTTP_SCHEME.test(v)) return parsesAsUrl(v) ? v : undefined;
  const p = URL.parse(v)?.protocol;
  return p === 'http:' || p === 'https:' ? v : undefined;
}
