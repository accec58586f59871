/**
 * Why a fetch failed, as a stable code a caller can branch on (retry, give up, tell the user).
 * - `blocked-address`: the URL, a redirect or a DNS answer points at a non-public address.
 * - `too-large`: the body (after decompression) is over the byte cap.
 * - `timeout`: connect, headers, body inactivity or the total deadline ran out.
 * - `too-many-redirects`, `http-status` (non-2xx/304), `bad-url`, `unsupported-scheme`.
 * - `network`: DNS failure, refused or dropped connection, TLS, corrupt compressed body.
 * - `file-not-allowed`: a local path without `allowFiles`; `file-error`: the file could not be read.
 */
export type FetchErrorCode =
  | 'blocked-address'
  | 'too-large'
  | 'timeout'
  | 'too-many-redirects'
  | 'http-status'
  | 'bad-url'
  | 'unsupported-scheme'
  | 'network'
  | 'file-not-allowed'
  | 'file-error';

export interface FetchErrorOptions {
  status?: number;
  /** From a 429/503 `Retry-After`, so a job's backoff can honour it. */
  retryAfterMs?: number;
  cause?: unknown;
}

/**
 * A failed fetch. `url` never carries userinfo (it is redacted before any error is built), and
 * the message says what to do about it, because it ends up in import reports users read.
 */
export class FetchError extends Error {
  readonly code: FetchErrorCode;
  readonly url: string;
  readonly status?: number;
  readonly retryAfterMs?: number;

  constructor(code: FetchErrorCode, url: string, message: string, options: FetchErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'FetchError';
    this.code = code;
    this.url = url;
    if (options.status !== undefined) this.status = options.status;
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }

  /** Whether trying again later can help: transient transport failures and 408/429/5xx. */
  get retryable(): boolean {
    if (this.code === 'timeout' || this.code === 'network') return true;
    if (this.code === 'http-status' && this.status !== undefined) {
      return this.status === 408 || this.status === 429 || this.status >= 500;
    }
    return false;
  }
}

/**
 * Raised inside the connector (which knows only the host, not the URL) when the guard refuses an
 * address; the HTTP layer turns it into a FetchError that names the full URL.
 */
export class AddressBlocked extends Error {
  readonly host: string;
  readonly address: string;
  readonly reason: string;

  constructor(host: string, address: string, reason: string) {
    super(host === address ? `${address} is ${reason}` : `${host} resolves to ${address}, ${reason}`);
    this.name = 'AddressBlocked';
    this.host = host;
    this.address = address;
    this.reason = reason;
  }
}

/** Raised by the body readers when the cap is crossed; mapped to `too-large` with the URL. */
export class BodyTooLarge extends Error {
  readonly limit: number;
  /** `decoded` when the cap was crossed only after decompression. */
  readonly stage: 'wire' | 'decoded';

  constructor(limit: number, stage: 'wire' | 'decoded') {
    super(`body exceeds ${limit} bytes (${stage})`);
    this.name = 'BodyTooLarge';
    this.limit = limit;
    this.stage = stage;
  }
}

/** `50 MB`, `1.5 MB`, `900 bytes`: limits in messages users read. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  if (n < 1024 * 1024) return `${trim(n / 1024)} KB`;
  return `${trim(n / (1024 * 1024))} MB`;
}

export function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

function trim(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(1);
}
