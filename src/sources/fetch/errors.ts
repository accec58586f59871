import { CalsyncError } from '../../errors/calsync-error.ts';
import type { FetchErrorCode } from '../../errors/codes.ts';

/** Why a fetch failed, as a stable code a caller can branch on (retry, give up, tell the user); see the registry. */
export type { FetchErrorCode } from '../../errors/codes.ts';

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
export class FetchError extends CalsyncError {
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
export class AddressBlocked extends CalsyncError {
  readonly code = 'blocked-address';
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
export class BodyTooLarge extends CalsyncError {
  readonly code = 'too-large';
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
