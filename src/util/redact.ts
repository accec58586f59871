/**
 * The one redaction rule for URLs that calsync shows or stores (errors, logs, run history, job
 * names, reports, the dashboard): no `user:pass@` userinfo and no query values. Feed URLs carry
 * secrets in both places (`https://user:pw@host/cal.ics`, `…/basic.ics?token=abc`); the path and
 * the query's parameter names are kept so a user can still tell which feed is meant.
 */

export const REDACTED = 'REDACTED';

/** A URL as it may be shown: userinfo dropped, every query value replaced by `REDACTED`. */
export function redactUrl(url: URL | string): string {
  let u: URL;
  try {
    u = new URL(String(url));
  } catch {
    return redactText(String(url));
  }
  if (u.username === '' && u.password === '' && u.search === '') return u.href;
  const copy = new URL(u.href);
  copy.username = '';
  copy.password = '';
  if (copy.search !== '') copy.search = redactQuery(copy.search.slice(1));
  return copy.href;
}

/** `a=1&token=x&flag` → `a=REDACTED&token=REDACTED&flag` (names kept, values gone). */
function redactQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      return eq < 0 ? pair : `${pair.slice(0, eq)}=${REDACTED}`;
    })
    .join('&');
}

// scheme://[userinfo@]host… up to whitespace or a character that cannot end a URL in prose.
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi;

/**
 * Every URL inside free text (an error message, a log line, a string that failed to parse as a
 * URL) redacted by the same rule. Text without `scheme://` is returned unchanged.
 */
export function redactText(text: string): string {
  return text.replace(URL_IN_TEXT, (m) => {
    // Userinfo first, textually, so even an unparsable URL loses its password. Up to the LAST `@`
    // of the authority, as URL parsing reads it: a user name that is an e-mail address
    // (`john@example.com:pw@host`) or a password with an unescaped `@` is userinfo as a whole.
    const noUser = m.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#\s]*@/i, '$1');
    const q = noUser.indexOf('?');
    if (q < 0) return noUser;
    const hash = noUser.indexOf('#', q);
    const query = noUser.slice(q + 1, hash < 0 ? undefined : hash);
    return `${noUser.slice(0, q)}?${redactQuery(query)}${hash < 0 ? '' : noUser.slice(hash)}`;
  });
}

/** True when a URL carries something the redaction would remove (userinfo or query values). */
export function hasUrlSecrets(url: string): boolean {
  return redactText(url) !== url;
}
