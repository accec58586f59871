import { CalsyncError } from '../../errors/calsync-error.ts';

/**
 * The circuit breaker opened: the site failed this many requests in a row (network errors, 5xx,
 * timeouts, rejected credentials), so the client sends nothing more. A run that meets it ends as
 * a whole (exit 1) instead of spending a retry budget on every remaining item.
 */
export class SiteDownError extends CalsyncError {
  override name = 'SiteDownError';
  readonly code = 'site-down';
  readonly failures: number;
  /** The last failure before the breaker opened. */
  readonly last: string;

  constructor(init: { failures: number; last: string; origin: string }) {
    super(`${init.origin} stopped answering: ${init.failures} requests in a row failed (last: ${init.last}); nothing more was sent`);
    this.failures = init.failures;
    this.last = init.last;
  }

  toJSON(): Record<string, unknown> {
    return { name: this.name, code: this.code, message: this.message, failures: this.failures, last: this.last };
  }
}
