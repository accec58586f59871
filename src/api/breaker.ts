import { SiteDownError } from './errors/site-down-error.ts';

/** Consecutive failed attempts after which a site is taken as down (see CircuitBreaker). */
export const DEFAULT_BREAKER_THRESHOLD = 20;

/**
 * Counts consecutive failed attempts to one site, across every call of a client (and of every
 * client a run shares it with). Any answer the site gives (2xx, 4xx other than rejected
 * credentials, 429) resets the count: the site is alive. Once the count reaches the threshold the
 * breaker stays open and every later attempt fails at once with SiteDownError, so a site that
 * stops answering costs a bounded number of requests, not one retry budget per item.
 */
export class CircuitBreaker {
  readonly threshold: number;
  readonly origin: string;
  #consecutive = 0;
  #error?: SiteDownError;

  constructor(origin: string, threshold = DEFAULT_BREAKER_THRESHOLD) {
    this.origin = origin;
    this.threshold = threshold;
  }

  /** The error that opened the breaker, once open. */
  get error(): SiteDownError | undefined {
    return this.#error;
  }

  /** Throws once the breaker is open. */
  check(): void {
    if (this.#error) throw this.#error;
  }

  succeeded(): void {
    if (!this.#error) this.#consecutive = 0;
  }

  failed(what: string): void {
    if (this.#error) return;
    this.#consecutive++;
    if (this.#consecutive >= this.threshold) this.#error = new SiteDownError({ failures: this.#consecutive, last: what, origin: this.origin });
  }
}

/** Answers that mean the site (or our access to it) is gone, not that one request was wrong. */
export function isSiteFailure(status: number | 'network-error', code?: string): boolean {
  if (status === 'network-error') return true;
  if (status >= 500) return true;
  return status === 401 && (code === 'incorrect_password' || code === 'invalid_username' || code === 'invalid_token');
}
