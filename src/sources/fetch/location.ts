import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { redactText as redactInText, redactUrl as redactUrlText } from '../../util/redact.ts';
import { FetchError } from './errors.ts';

/**
 * Turning what a user typed (`webcal://…`, `https://…`, `./events.ics`, `file:///…`) into either
 * an http(s) URL or a local path, and making URLs safe to show.
 */

export type Target = { kind: 'url'; url: URL } | { kind: 'file'; path: string; url: string };

const SCHEME = /^([a-z][a-z0-9+.-]*):/i;

/**
 * `webcal://` and `webcals://` are how calendar apps advertise subscriptions; the feed itself is
 * served over HTTPS. Other locations are returned unchanged.
 */
export function mapWebcal(location: string): string {
  const m = /^webcals?:\/\//i.exec(location);
  // A fresh string, not `url.protocol = 'https:'`: the WHATWG setter refuses to turn a
  // non-special scheme into a special one, and re-parsing as https normalizes the host
  // (decimal/hex IPv4 spellings) before the guard sees it.
  return m ? `https://${location.slice(m[0].length)}` : location;
}

export function resolveLocation(location: string, allowFiles: boolean): Target {
  const text = location.trim();
  if (text === '') throw new FetchError('bad-url', '', 'The source location is empty. Give an http(s) URL or, from the command line, a file path.');
  const scheme = SCHEME.exec(text)?.[1]?.toLowerCase();
  // One-letter "schemes" are Windows drive letters (C:\feeds\a.ics), i.e. paths.
  if (scheme === undefined || scheme.length === 1) return fileTarget(text, path.resolve(text), allowFiles);
  if (scheme === 'file') {
    let p: string;
    try {
      p = fileURLToPath(text);
    } catch (err) {
      throw new FetchError('bad-url', redactText(text), `${redactText(text)} is not a local file URL.`, { cause: err });
    }
    return fileTarget(text, p, allowFiles);
  }
  const mapped = mapWebcal(text);
  let url: URL;
  try {
    url = new URL(mapped);
  } catch (err) {
    throw new FetchError('bad-url', redactText(text), `${redactText(text)} is not a valid URL. Check the source's location.`, { cause: err });
  }
  return { kind: 'url', url: checkHttpUrl(url) };
}

/** Shared by the first request and every redirect target. */
export function checkHttpUrl(url: URL): URL {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchError(
      'unsupported-scheme',
      redactUrl(url),
      `Refused to fetch ${redactUrl(url)}: only http, https and webcal URLs can be fetched (got ${url.protocol.slice(0, -1)}).`,
    );
  }
  if (url.hostname === '') throw new FetchError('bad-url', redactUrl(url), `${redactUrl(url)} has no host name.`);
  return url;
}

function fileTarget(original: string, filePath: string, allowFiles: boolean): Target {
  if (!allowFiles) {
    const looksLikeHost = /^[a-z0-9-]+(\.[a-z0-9-]+)+(\/|$)/i.test(original);
    throw new FetchError(
      'file-not-allowed',
      redactText(original),
      `Refused to read ${redactText(original)}: local files can only be imported from the command line.` +
        (looksLikeHost ? ` If this is a web address, start it with https://.` : ' Give an http(s) URL instead.'),
    );
  }
  return { kind: 'file', path: filePath, url: pathToFileURL(filePath).href };
}

/** The URL as it may appear in results, logs and errors: no userinfo, no query values (src/util/redact.ts). */
export function redactUrl(url: URL): string {
  return redactUrlText(url);
}

/** Redaction for strings that did not parse as a URL, by the same rule. */
export function redactText(text: string): string {
  return redactInText(text);
}

/**
 * Userinfo in a feed URL (`https://user:pass@host/cal.ics`) becomes a Basic Authorization
 * header and is removed from the URL, so it is never sent in a request line, kept in a result or
 * printed in an error.
 */
export function splitCredentials(url: URL): { url: URL; authorization?: string } {
  if (url.username === '' && url.password === '') return { url };
  const user = safeDecode(url.username);
  const pass = safeDecode(url.password);
  const clean = new URL(url.href);
  clean.username = '';
  clean.password = '';
  return { url: clean, authorization: `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}` };
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s; // a stray `%` is taken literally rather than failing the whole fetch
  }
}
