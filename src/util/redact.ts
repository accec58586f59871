/**
 * The one redaction rule for URLs that calsync shows or stores (errors, logs, run history, job
 * names, reports, the dashboard): no `user:pass@` userinfo, no query values and no secret path
 * segments. Feed URLs carry secrets in all three places (`https://user:pw@host/cal.ics`,
 * `…/basic.ics?token=abc`, Google's `…/ical/<id>/private-<token>/basic.ics`); the host, the rest of
 * the path and the query's parameter names are kept so a user can still tell which feed is meant.
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
  const pathname = redactPath(u.pathname);
  if (u.username === '' && u.password === '' && u.search === '' && pathname === u.pathname) return u.href;
  const copy = new URL(u.href);
  copy.username = '';
  copy.password = '';
  if (copy.search !== '') copy.search = redactQuery(copy.search.slice(1));
  copy.pathname = pathname;
  return copy.href;
}

/**
 * Private-feed URL shapes whose path holds the secret: the segments that are the key to the
 * calendar are replaced, the rest kept. Google: `/calendar/ical/<calendar id>/private-<key>/basic.ics`.
 * Outlook / Office 365 published calendars: `/owa/calendar/<mailbox>/<key>[/<key>…]/calendar.ics`.
 */
const PRIVATE_SHAPES: { path: RegExp; redact: (mark: Mark, m: string, ...groups: string[]) => string }[] = [
  { path: /(\/calendar\/ical\/[^/]+\/private-)[^/]+/i, redact: (mark, m, head) => `${head}${mark(m.slice(head.length))}` },
  { path: /(\/owa\/calendar\/[^/]+\/)((?:[^/]+\/)*[^/]+)(?=\/[^/]*$)/i, redact: (mark, _m, head, keys) => head + keys.split('/').map((k) => mark(k)).join('/') },
];

/**
 * A path piece that looks like a random key rather than a word, a slug or a number: 16 or more
 * letters and digits with at least one of each (hex and base64 keys, Nextcloud and iCloud share
 * tokens), or a UUID. Pieces are split at `-`, `_`, `.` and `~`, so a slug such as
 * `summer-festival-2024` or a file name such as `basic.ics` stays as it is, while `private-<hex>`
 * loses the hex.
 */
// Both alternatives start only where a piece starts (the lookbehind), so text is scanned once.
const KEY_PIECE = /(?<![A-Za-z0-9%])(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|(?=[A-Za-z]*[0-9])(?=[0-9]*[A-Za-z])[A-Za-z0-9]{16,}(?![A-Za-z0-9]))/gi;

/** What a secret path piece becomes: `REDACTED` where a URL is shown. */
type Mark = (secret: string) => string;
const redacted: Mark = () => REDACTED;

/** A URL path with its secret segments (known private-feed shapes, random-looking keys) replaced by `mark`'s text. */
function redactPath(path: string, mark: Mark = redacted): string {
  let out = path;
  for (const shape of PRIVATE_SHAPES) out = out.replace(shape.path, (m: string, ...groups: string[]) => shape.redact(mark, m, ...groups));
  return out.replace(KEY_PIECE, (m) => mark(m));
}

/**
 * A URL path with each secret piece (the ones redaction replaces) given to `mark` for its stand-in:
 * for names derived from a private feed's URL (a source key), which must not carry its token.
 */
export function pathWithoutSecrets(path: string, mark: Mark): string {
  return redactPath(path, mark);
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
    const authority = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(noUser)![0];
    const end = noUser.search(/[?#]/);
    const path = noUser.slice(authority.length, end < 0 ? undefined : end);
    const rest = end < 0 ? '' : noUser.slice(end);
    const q = rest.indexOf('?');
    if (q < 0) return authority + redactPath(path) + rest;
    const hash = rest.indexOf('#', q);
    const query = rest.slice(q + 1, hash < 0 ? undefined : hash);
    return `${authority}${redactPath(path)}${rest.slice(0, q)}?${redactQuery(query)}${hash < 0 ? '' : rest.slice(hash)}`;
  });
}

/** True when a URL carries something the redaction would remove (userinfo, query values, path keys). */
export function hasUrlSecrets(url: string): boolean {
  return redactText(url) !== url;
}

/** True when a URL's path holds a segment the redaction replaces (a private-feed key, a random-looking token). */
export function hasPathSecrets(url: URL): boolean {
  return redactPath(url.pathname) !== url.pathname;
}
