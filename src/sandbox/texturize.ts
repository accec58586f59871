/**
 * The part of WordPress's `wptexturize` that real sites apply to every title and text the v1 API
 * returns: straight quotes become typographic ones, ` -- ` an em dash, `--` and ` - ` en dashes,
 * `...` an ellipsis, and a bare `&` becomes `&#038;`. Tags (and an unclosed `<` to the end, as
 * WordPress treats it) are left alone. So the sandbox shows clients the same rendered text real
 * sites do, and a sync has to read the raw text to copy what the author typed.
 */
export function texturize(text: string): string {
  return text
    .split(/(<[^>]*(?:>|$))/)
    .map((part, i) => (i % 2 === 1 ? part : texturizeText(part)))
    .join('');
}

function texturizeText(s: string): string {
  return s
    .replace(/&(?!#?[a-z0-9]+;)/gi, '&#038;')
    .replace(/ -- /g, ' &#8212; ')
    .replace(/--/g, '&#8211;')
    .replace(/ - /g, ' &#8211; ')
    .replace(/\.\.\./g, '&#8230;')
    .replace(/(^|[\s([{])"/g, '$1&#8220;')
    .replace(/"/g, '&#8221;')
    .replace(/(\w)'/g, '$1&#8217;')
    .replace(/(^|[\s([{])'(?=\w)/g, '$1&#8216;')
    .replace(/'/g, '&#8217;');
}
