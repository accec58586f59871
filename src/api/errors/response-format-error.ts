import { CalsyncError } from '../../errors/calsync-error.ts';

/**
 * The site answered 2xx but the body is not what the interface returns (not JSON, or a record
 * without an id): usually a wrong `restRoot`/`namespace` (an HTML page, a proxy's error page) or
 * a plugin that rewrites responses.
 */
export class ResponseFormatError extends CalsyncError {
  override name = 'ResponseFormatError';
  readonly code = 'response-format';
  readonly method: string;
  readonly route: string;
  readonly url: string;
  readonly status: number;
  /** First bytes of the body, for diagnosis. */
  readonly excerpt: string;

  constructor(init: { method: string; route: string; url: string; status: number; problem: string; excerpt: string }) {
    super(`${init.method} ${init.route} → ${init.status}: unexpected response: ${init.problem}`);
    this.method = init.method;
    this.route = init.route;
    this.url = init.url;
    this.status = init.status;
    this.excerpt = init.excerpt;
  }
}
