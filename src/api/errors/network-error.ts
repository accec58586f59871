export interface NetworkErrorInit {
  method: string;
  route: string;
  url: string;
  /** undici / Node error code, e.g. `ECONNRESET`, `UND_ERR_SOCKET`. */
  code: string;
  attempts: number;
  cause?: unknown;
}

/** No usable HTTP response: connection refused or reset, socket closed, DNS failure. */
export class NetworkError extends Error {
  override name = 'NetworkError';
  readonly method: string;
  readonly route: string;
  readonly url: string;
  readonly code: string;
  readonly attempts: number;

  constructor(init: NetworkErrorInit, message?: string) {
    super(message ?? `${init.method} ${init.route} → network error ${init.code} after ${init.attempts} attempt(s)`, {
      cause: init.cause,
    });
    this.method = init.method;
    this.route = init.route;
    this.url = init.url;
    this.code = init.code;
    this.attempts = init.attempts;
  }

  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      message: this.message,
      code: this.code,
      method: this.method,
      route: this.route,
      url: this.url,
      attempts: this.attempts,
    };
  }
}
