import { STATUS_CODES } from 'node:http';
import { AddressBlocked, BodyTooLarge, FetchError, formatBytes, formatMs } from './errors.ts';
import { UnsupportedEncoding } from './decode.ts';
import type { ResolvedOptions } from './options.ts';
import { parseRetryAfter } from '../../util/retry-after.ts';

/**
 * Translating whatever went wrong (undici, Node, zlib, our own markers) into a FetchError whose
 * message tells the user what happened and what to change. `url` is always already redacted.
 */

/** The guard's refusal, wherever in the error chain undici or net put it. */
export function blockedError(url: string, blocked: AddressBlocked): FetchError {
  const subject = blocked.host === blocked.address ? blocked.address : blocked.host;
  // Allow entries are host[:port]; a port other than 80/443 must be named (src/sources/fetch/guard.ts).
  let port = '';
  try {
    const p = new URL(url).port;
    if (p !== '' && p !== '80' && p !== '443') port = `:${p}`;
  } catch {
    port = '';
  }
  const host = subject.includes(':') ? `[${subject}]` : subject;
  return new FetchError(
    'blocked-address',
    url,
    `Refused to fetch ${url}: ${blocked.message}. ` +
      // An ad-hoc queued job carries no allow list (jobs/payload.ts): the message names where one can be given.
      `Add ${port || subject.includes(':') ? host : subject}${port} to the source's allow list (\`allow\` of a configured source, \`--allow\` of \`calsync import\`) if this feed is trusted.`,
    { cause: blocked },
  );
}

export function tooLargeError(url: string, limit: number, how: 'declared' | 'wire' | 'decoded' | 'file'): FetchError {
  const what =
    how === 'declared'
      ? `the server announces a body over the ${formatBytes(limit)} limit`
      : how === 'decoded'
        ? `the feed is over the ${formatBytes(limit)} limit once decompressed`
        : `the feed is over the ${formatBytes(limit)} limit`;
  return new FetchError(
    'too-large',
    url,
    `Refused to read ${url}: ${what}. If the feed really is that big, raise maxBytes for this source.`,
  );
}

export function timeoutError(url: string, what: string, cause?: unknown): FetchError {
  return new FetchError('timeout', url, `Timed out fetching ${url}: ${what}.`, { cause });
}

/** The total deadline ran out (as opposed to the caller cancelling). */
export function deadlineError(url: string, totalMs: number, cause?: unknown): FetchError {
  return timeoutError(url, `the fetch did not finish within ${formatMs(totalMs)} (timeouts.totalMs)`, cause);
}

export function statusError(url: string, status: number, retryAfter: string | undefined): FetchError {
  const label = `${status}${STATUS_CODES[status] ? ` ${STATUS_CODES[status]}` : ''}`;
  let advice: string;
  if (status === 401 || status === 403) {
    advice = 'The feed needs access rights: ask its publisher for a public link, or put the credentials in the source URL.';
  } else if (status === 404 || status === 410) {
    advice = 'Check the URL; the publisher may have moved or removed the feed.';
  } else if (status === 429) {
    advice = 'The server is rate limiting; fetch this feed less often.';
  } else if (status >= 500) {
    advice = 'This is usually temporary on the server side.';
  } else {
    advice = 'Check the URL.';
  }
  const retryAfterMs = parseRetryAfter(retryAfter);
  return new FetchError('http-status', url, `Fetching ${url} failed: the server answered ${label}. ${advice}`, {
    status,
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  });
}

/** Map a transport-level failure (anything not already a FetchError). */
export function transportError(err: unknown, url: string, o: ResolvedOptions): FetchError {
  if (err instanceof FetchError) return err;
  const blocked = findBlocked(err);
  if (blocked) return blockedError(url, blocked);
  if (err instanceof BodyTooLarge) return tooLargeError(url, err.limit, err.stage);
  if (err instanceof UnsupportedEncoding) {
    return new FetchError('network', url, `Could not read ${url}: the server used ${err.message}.`, { cause: err });
  }
  const code = (err as { code?: unknown } | null)?.code;
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return timeoutError(url, `could not connect within ${formatMs(o.connectMs)} (timeouts.connectMs)`, err);
    case 'UND_ERR_HEADERS_TIMEOUT':
      return timeoutError(url, `the server did not answer within ${formatMs(o.headersMs)} (timeouts.headersMs)`, err);
    case 'UND_ERR_BODY_TIMEOUT':
      return timeoutError(url, `the server stopped sending data for ${formatMs(o.bodyMs)} (timeouts.bodyMs)`, err);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NODATA':
    case 'EAI_NONAME':
      return network(url, 'the host name could not be resolved. Check the URL for typos', err);
    case 'ECONNREFUSED':
      return network(url, 'the server refused the connection', err);
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH':
    case 'ERR_STREAM_PREMATURE_CLOSE':
      return network(url, 'the connection closed before the whole feed arrived', err);
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return network(url, 'the server is unreachable from here', err);
    default:
      break;
  }
  // zlib reports Z_DATA_ERROR, Z_BUF_ERROR…; brotli reports ERR__ERROR_FORMAT_… and the like.
  if (typeof code === 'string' && /^(Z_|ERR__|ERR_ZLIB|ERR_BROTLI)/.test(code)) {
    return network(url, 'the compressed body is corrupt or truncated', err);
  }
  if (typeof code === 'string' && /CERT|SSL|TLS/i.test(code)) {
    return network(url, `the TLS connection failed (${code}). The server's certificate may be invalid or expired`, err);
  }
  const detail = err instanceof Error ? err.message : String(err);
  return network(url, detail, err);
}

function network(url: string, what: string, cause: unknown): FetchError {
  return new FetchError('network', url, `Could not fetch ${url}: ${what}.`, { cause });
}

function findBlocked(err: unknown, depth = 0): AddressBlocked | undefined {
  if (err instanceof AddressBlocked) return err;
  if (depth > 4 || err === null || typeof err !== 'object') return undefined;
  if (err instanceof AggregateError) {
    for (const e of err.errors) {
      const found = findBlocked(e, depth + 1);
      if (found) return found;
    }
  }
  return findBlocked((err as { cause?: unknown }).cause, depth + 1);
}
