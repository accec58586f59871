import { ApiError, NotFoundError } from './errors/index.ts';
import { SerializedWpError, WpErrorBody } from './schemas/errors.ts';
import type { RawResponse } from './transport.ts';

/** Where a response came from, for the error it may become. */
export interface ResponseContext {
  method: string;
  route: string;
  url: string;
  attempts: number;
  /**
   * `rest_invalid_param` names that mean "the addressed record does not exist" on this route:
   * `slug` on by-slug routes, `id` on by-id routes (unknown slug → 400, unknown venue id → 400: test/contract/upsert.test.ts, linked.test.ts).
   */
  notFoundParams?: readonly string[];
}

/** `-not-found` codes, except the paging signal `*-archive-page-not-found`, which paging.ts handles. */
function isNotFoundCode(code: string): boolean {
  return /not[-_]found$/.test(code) && !code.endsWith('archive-page-not-found');
}

function classify(status: number, code: string, params: unknown, ctx: ResponseContext): boolean {
  // A 500 `event-not-found` is TEC failing to re-read a post it just deleted for good (a
  // real site's answer to a forced delete): the record did exist, so it is not reported as a miss.
  if (isNotFoundCode(code)) return status < 500;
  if (status !== 400 || !ctx.notFoundParams?.length) return false;
  if (code === 'rest-invalid-event-id') return ctx.notFoundParams.includes('id');
  if (code !== 'rest_invalid_param') return false;
  const names = Array.isArray(params) ? params : params && typeof params === 'object' ? Object.keys(params) : [];
  return ctx.notFoundParams.some((p) => names.includes(p));
}

/** A short, single-line excerpt of a body that is not JSON (an HTML error page from a proxy). */
export function excerptOf(text: string, max = 200): string {
  return text.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim().slice(0, max);
}

/** The error an HTTP error response (status ≥ 400) stands for. */
export function errorFromResponse(res: RawResponse, ctx: ResponseContext): ApiError {
  const parsed = WpErrorBody.safeParse(res.json);
  const base = { method: ctx.method, route: ctx.route, url: ctx.url, attempts: ctx.attempts, status: res.status };
  if (!parsed.success) {
    return new ApiError({ ...base, code: `http_${res.status}`, serverMessage: excerptOf(res.text) || undefined, body: res.json ?? res.text.slice(0, 2000) });
  }
  const { code, message, data } = parsed.data;
  const init = { ...base, code, serverMessage: message, params: data?.params, data, body: res.json };
  return classify(res.status, code, data?.params, ctx) ? new NotFoundError(init) : new ApiError(init);
}

/** The cheap shape test of a serialized WP_Error (an `errors` key, no `id`), before any schema runs. */
export function mayBeSerializedError(json: unknown): json is object {
  return !!json && typeof json === 'object' && !Array.isArray(json) && 'errors' in json && !('id' in json);
}

/**
 * TEC 6.17.1 answers some misses with 200 and a serialized WP_Error body
 * (`{"errors":{"event-not-found":[…]},"error_data":[]}`); any 2xx body of that shape is an error.
 */
export function errorFromSuccessBody(res: RawResponse, ctx: ResponseContext): ApiError | undefined {
  const json = res.json;
  if (!mayBeSerializedError(json)) return undefined;
  const parsed = SerializedWpError.safeParse(json);
  if (!parsed.success) return undefined;
  const [code, messages] = Object.entries(parsed.data.errors)[0] ?? ['unknown_error', []];
  const init = {
    method: ctx.method,
    route: ctx.route,
    url: ctx.url,
    attempts: ctx.attempts,
    status: res.status,
    code,
    serverMessage: typeof messages[0] === 'string' ? messages[0] : undefined,
    data: parsed.data.error_data,
    body: json,
  };
  return isNotFoundCode(code) ? new NotFoundError(init) : new ApiError(init);
}
