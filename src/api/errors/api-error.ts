/** Everything needed to describe a failed call; never the Authorization header or userinfo. */
export interface ApiErrorInit {
  status: number;
  code: string;
  /** The site's own message (localized: match on `code`, never on this). */
  serverMessage?: string;
  params?: unknown;
  data?: unknown;
  method: string;
  /** Route template, e.g. `/events/by-slug/:slug`: stable for grouping and metrics. */
  route: string;
  /** Full URL without credentials (see transport.ts `displayUrl`). */
  url: string;
  body?: unknown;
  attempts?: number;
}

/** Parameter names out of WordPress's `data.params`: an object for invalid ones, an array for missing ones. */
export function paramNames(params: unknown): string[] {
  if (Array.isArray(params)) return params.map(String);
  if (params && typeof params === 'object') return Object.keys(params);
  return [];
}

/**
 * The site answered with an error: a WordPress `{code, message, data}` body (or, for TEC 6.17.1,
 * a serialized WP_Error with 200 OK). Switch on `status` + `code`; `message` reads like
 * `POST /events/by-slug/:slug → 400 rest_invalid_param: Invalid parameter(s): start_date (params: start_date)`.
 */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: number;
  readonly code: string;
  readonly params?: unknown;
  readonly data?: unknown;
  readonly method: string;
  readonly route: string;
  readonly url: string;
  readonly body?: unknown;
  /** How many attempts were made before giving up (1 = no retry). */
  readonly attempts: number;

  constructor(init: ApiErrorInit) {
    const names = paramNames(init.params);
    const detail = init.serverMessage ? `: ${init.serverMessage}` : '';
    const params = names.length ? ` (params: ${names.join(', ')})` : '';
    super(`${init.method} ${init.route} → ${init.status} ${init.code}${detail}${params}`);
    this.status = init.status;
    this.code = init.code;
    this.params = init.params;
    this.data = init.data;
    this.method = init.method;
    this.route = init.route;
    this.url = init.url;
    this.body = init.body;
    this.attempts = init.attempts ?? 1;
  }

  /** Names of the parameters the site refused or missed (empty when none were named). */
  get paramNames(): string[] {
    return paramNames(this.params);
  }

  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      message: this.message,
      status: this.status,
      code: this.code,
      params: this.params,
      method: this.method,
      route: this.route,
      url: this.url,
      attempts: this.attempts,
    };
  }
}
