import iconv from 'iconv-lite';

/**
 * TEXT values: RFC 5545 unescaping (after unfolding, so an escape split by a fold is whole again),
 * comma lists with escaped commas, QUOTED-PRINTABLE (vCalendar 1.0 relic still written by Drupal and
 * GoToMeeting), and the two ways a description reaches the site as HTML: plain text escaped with line
 * breaks kept, or producer HTML passed through an allowlist sanitizer.
 */

const ESCAPES: Record<string, string> = { n: '\n', N: '\n', '\\': '\\', ';': ';', ',': ',', ':': ':', '"': '"', "'": "'" };

/** `\n`/`\N` -> newline, `\\` `\;` `\,` -> the character; also the invalid-but-meant `\:` and `\"`. */
export function unescapeText(value: string): string {
  let at = value.indexOf('\\');
  if (at < 0) return value;
  let out = '';
  let last = 0;
  while (at >= 0 && at < value.length - 1) {
    const rep = ESCAPES[value[at + 1]];
    if (rep !== undefined) {
      out += value.slice(last, at) + rep;
      last = at + 2;
      at = value.indexOf('\\', last);
    } else at = value.indexOf('\\', at + 1);
  }
  return out + value.slice(last);
}

/** Split a TEXT list on unescaped commas (CATEGORIES, RESOURCES), then unescape each item. */
export function splitTextList(value: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === '\\' && i + 1 < value.length) {
      cur += c + value[i + 1];
      i++;
    } else if (c === ',') {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
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

const DROP_WITH_CONTENT = new Set(['script', 'style', 'head', 'title', 'iframe', 'object', 'embed', 'noscript', 'template', 'svg', 'math', 'textarea', 'select', 'xml']);
const VOID = new Set(['br', 'hr', 'img']);
const ALLOWED: Record<string, readonly string[]> = {
  p: [], br: [], hr: [], b: [], strong: [], i: [], em: [], u: [], s: [], del: [], ins: [], sub: [], sup: [], small: [],
  span: [], div: [], blockquote: [], pre: [], code: [], h1: [], h2: [], h3: [], h4: [], h5: [], h6: [],
  ul: [], ol: ['start'], li: [], dl: [], dt: [], dd: [],
  table: [], thead: [], tbody: [], tfoot: [], tr: [], td: ['colspan', 'rowspan'], th: ['colspan', 'rowspan'],
  a: ['href', 'title'], img: ['src', 'alt', 'title', 'width', 'height'],
};
const URL_ATTRS = new Set(['href', 'src']);

const TOKEN =
  /<!--[\s\S]*?(?:-->|$)|<!\[CDATA\[[\s\S]*?\]\]>|<[!?][^>]*>|<(\/?)([a-zA-Z][a-zA-Z0-9:-]*)((?:\s+[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*)\s*\/?>/g;
const ATTR = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;

function safeUrl(raw: string): string | undefined {
  const v = raw.replace(/&#0*58;|&colon;/gi, ':').replace(/[\u0000-\u0020]/g, '');
  if (/^(?:https?:|mailto:|tel:)/i.test(v)) return raw.trim();
  if (/^[a-z][a-z0-9+.-]*:/i.test(v)) return undefined; // javascript:, vbscript:, data:, ...
  return raw.trim();
}

/**
 * Allowlist sanitizer: keeps common formatting tags with a few attributes (links and images with
 * http(s)/mailto/relative URLs), drops script/style/head/... with their content, drops every other tag
 * (keeping its text), all `on*` handlers, `style` and `class`, comments and doctype. Returns '' when
 * nothing visible is left.
 */
export function sanitizeHtml(html: string): string {
  let out = '';
  let last = 0;
  let dropUntil: string | undefined;
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(html); m; m = TOKEN.exec(html)) {
    const text = html.slice(last, m.index);
    last = TOKEN.lastIndex;
    if (!dropUntil) out += text.replace(/</g, '&lt;');
    const tag = m[2]?.toLowerCase();
    if (!tag) continue; // comment, doctype, CDATA, processing instruction
    const closing = m[1] === '/';
    if (dropUntil) {
      if (closing && tag === dropUntil) dropUntil = undefined;
      continue;
    }
    if (DROP_WITH_CONTENT.has(tag)) {
      if (!closing && !/\/>$/.test(m[0])) dropUntil = tag;
      continue;
    }
    const allowed = ALLOWED[tag];
    if (!allowed) continue;
    if (closing) {
      if (!VOID.has(tag)) out += `</${tag}>`;
      continue;
    }
    let attrs = '';
    ATTR.lastIndex = 0;
    for (let a = ATTR.exec(m[3] ?? ''); a; a = ATTR.exec(m[3] ?? '')) {
      const name = a[1].toLowerCase();
      if (!allowed.includes(name)) continue;
      let val = a[2] ?? a[3] ?? a[4] ?? '';
      if (URL_ATTRS.has(name)) {
        const u = safeUrl(val);
        if (u === undefined) continue;
        val = u;
      }
      attrs += ` ${name}="${val.replace(/"/g, '&quot;').replace(/</g, '&lt;')}"`;
    }
    if (tag === 'img' && !/ src="/.test(attrs)) continue;
    out += `<${tag}${attrs}>`;
  }
  if (!dropUntil) out += html.slice(last).replace(/</g, '&lt;');
  out = out.trim();
  const visible = out.replace(/<(?!img)[^>]*>/g, '').replace(/&nbsp;|\u00a0/g, ' ').trim();
  return visible || /<img /.test(out) ? out : '';
}
