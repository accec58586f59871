/**
 * Descriptions keep their HTML (the site renders it), minus what runs code: script/style elements
 * with their content, on* event-handler attributes and javascript:/vbscript: URLs. This is a
 * first line only; the site filters posts again (kses) for users without unfiltered_html.
 */

const SCRIPT_STYLE = /<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi;
const STRAY_TAG = /<\/?(?:script|style)\b[^>]*>?/gi;
const HANDLER = /(<[a-z][^>]*?)\s+on[a-z]+\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+)/gi;
const JS_URL = /(\s(?:href|src|action|formaction|xlink:href)\s*=\s*["']?)\s*(?:javascript|vbscript):[^"'\s>]*/gi;

export function sanitizeHtml(html: string): string {
  if (!html.includes('<')) return html;
  let out = html.replace(SCRIPT_STYLE, '').replace(STRAY_TAG, '');
  let prev: string;
  do {
    prev = out;
    out = out.replace(HANDLER, '$1');
  } while (out !== prev);
  return out.replace(JS_URL, '$1#');
}
