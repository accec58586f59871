/**
 * Retry policy: what may be repeated, how long to wait. Decisions only; the loop is in executor.ts.
 *
 * Three kinds of request:
 *  - `safe`: GET, DELETE, and updates (POST/PUT/PATCH to by-id and by-slug routes). Repeating one
 *    leaves the site as one success would (updates always carry the full body).
 *  - `create`: POST to a collection. Repeating one that landed makes a duplicate, so it is repeated
 *    only when the failure proves it did not land (connection never made, 429) or after the
 *    executor's `verify` step found no trace of it.
 */
export type RetryKind = 'safe' | 'create';

export interface RetryPolicy {
  maxRetries: number;
  minDelayMs: number;
  maxDelayMs: number;
}

/**
 * What to do after a failed attempt:
 *  - `retry`: repeat it (after the backoff / Retry-After wait);
 *  - `verify`: a create may or may not have landed: look for it before repeating;
 *  - `fail`: give up now.
 */
export type Decision = 'retry' | 'verify' | 'fail';

/** Errors raised before the request could reach the server: safe to repeat even for a create. */
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
]);

/** Errors after the request may have been sent: the server may have acted on it. */
const MAYBE_SENT = new Set([
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
]);

/** The undici/Node error code of a transport failure, looking through `cause` chains. */
export function networkCode(err: unknown): string {
  let e: unknown = err;
  for (let depth = 0; depth < 5 && e && typeof e === 'object'; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return 'UNKNOWN';
}

export function decideAfterNetworkError(code: string, kind: RetryKind, canVerify: boolean): Decision {
  if (NOT_SENT.has(code)) return 'retry';
  // An HTTP parser error (`HPE_*`) is a response cut or garbled mid-way: the request was sent.
  if (MAYBE_SENT.has(code) || code.startsWith('HPE_')) {
    if (kind === 'safe') return 'retry';
    return canVerify ? 'verify' : 'fail';
  }
  return 'fail';
}

export function decideAfterStatus(status: number, kind: RetryKind, canVerify: boolean): Decision {
  // A throttled request was refused before it was handled: repeatable for every kind.
  if (status === 429) return 'retry';
  if (status === 502 || status === 503 || status === 504 || status === 500) {
    if (kind === 'safe') return 'retry';
    // 500 is retried blindly only for idempotent requests; a create may have landed on any 5xx
    // (a proxy timing out in front of a slow PHP, TEC's 500 after a successful insert), so a
    // create is repeated only after looking for it.
    return canVerify ? 'verify' : 'fail';
  }
  return 'fail';
}

/** Capped exponential backoff with full jitter (AWS architecture blog): uniform in [0, min(cap, base·2ⁿ)]. */
export function backoffDelay(retryIndex: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.minDelayMs * 2 ** retryIndex);
  return Math.floor(random() * ceiling);
}
