import { errors, Pool, type Dispatcher } from 'undici';
import type { ResolvedConnection } from './connection.ts';
import { sharedPool } from './pools.ts';
import { Slots } from '../util/pool.ts';
import { REDACTED } from '../util/redact.ts';

/**
 * One keep-alive undici Pool to the site's origin, the Authorization header, the per-attempt
 * timers, and URL building. One attempt per `send()`: retries, deadlines and error mapping live
 * in executor.ts. Credentials exist only in `#authHeader`; every URL handed out is credential-free.
 */

export interface AttemptRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path under the namespace, already encoded: `/events/12`, `` for the namespace index. */
  path: string;
  query: Array<[string, string]>;
  body?: unknown;
  signal?: AbortSignal;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** Parsed JSON, or `undefined` when the body is not JSON. */
  json: unknown;
}

/** Largest body read into memory; the namespace index with `context=help` is the biggest (~1 MB). */
const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

export class Transport {
  readonly #pool: Pool;
  readonly #authHeader?: string;
  /** The credential as a site or proxy could echo it back in an error (see #scrubbed). */
  readonly #secrets: readonly string[] = [];
  readonly #namespace: string;
  readonly #origin: string;
  readonly #basePath: string;
  /** Set for sites without pretty permalinks: `index.php?rest_route=/ns/route`. */
  readonly #restRouteParams?: URLSearchParams;
  /** Request headers without and with a JSON body: the same for every attempt, built once (undici only reads them). */
  readonly #headers: Readonly<Record<string, string>>;
  readonly #jsonHeaders: Readonly<Record<string, string>>;

  constructor(conn: ResolvedConnection) {
    const root = new URL(conn.restRoot);
    if (root.protocol !== 'http:' && root.protocol !== 'https:') {
      throw new TypeError(`restRoot must be an http(s) URL, got ${root.protocol}`);
    }
    // Userinfo in the URL is accepted as Basic credentials, then kept out of every URL we show.
    const urlUser = decodeURIComponent(root.username);
    const urlPassword = decodeURIComponent(root.password);
    const auth = conn.auth ?? (urlUser ? { kind: 'basic' as const, user: urlUser, password: urlPassword } : undefined);
    if (auth?.kind === 'basic') {
      const token = Buffer.from(`${auth.user}:${auth.password}`).toString('base64');
      this.#authHeader = `Basic ${token}`;
      this.#secrets = echoable([token, auth.password]);
    } else if (auth?.kind === 'bearer') {
      this.#authHeader = `Bearer ${auth.token}`;
      this.#secrets = echoable([auth.token]);
    }
    this.#origin = root.origin;
    this.#namespace = conn.namespace;
    if (root.searchParams.has('rest_route')) {
      this.#restRouteParams = new URLSearchParams(root.search);
      this.#basePath = root.pathname;
    } else {
      this.#basePath = root.pathname.replace(/\/+$/, '');
    }
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': conn.userAgent };
    if (this.#authHeader) headers.authorization = this.#authHeader;
    this.#headers = headers;
    this.#jsonHeaders = { ...headers, 'content-type': 'application/json' };
    const options: Pool.Options = {
      connections: conn.connections,
      connect: { timeout: conn.timeouts.connectMs },
      headersTimeout: conn.timeouts.headersMs,
      bodyTimeout: conn.timeouts.bodyMs,
      maxResponseSize: MAX_RESPONSE_BYTES,
    };
    // A shared pool has no connection cap of its own: each client keeps to its `connections`.
    this.#shared = conn.sharePool ? new Slots(conn.connections) : undefined;
    this.#pool = conn.sharePool ? sharedPool(this.#origin, { ...options, connections: null }) : new Pool(this.#origin, options);
  }

  /**
   * Set when the pool is the process's (pools.ts): this client's requests in flight, at most
   * `connections`; close() then waits for those only.
   */
  readonly #shared?: Slots;
  #inflight = 0;
  /** close() calls waiting for this client's last request. */
  readonly #closing: Array<() => void> = [];

  /** The request target (path + query) sent on the wire. */
  target(path: string, query: Array<[string, string]>): string {
    const route = `/${this.#namespace}${path}`;
    if (this.#restRouteParams) {
      const params = new URLSearchParams(this.#restRouteParams);
      params.set('rest_route', route);
      for (const [k, v] of query) params.append(k, v);
      return `${this.#basePath}?${params.toString()}`;
    }
    if (query.length === 0) return `${this.#basePath}${route}`;
    return `${this.#basePath}${route}?${new URLSearchParams(query).toString()}`;
  }

  /** A URL safe to put in errors and logs: no userinfo (never part of `origin`), event passwords masked. */
  displayUrl(path: string, query: Array<[string, string]>): string {
    const masked = query.map(([k, v]): [string, string] => (k === 'password' ? [k, '***'] : [k, v]));
    return `${this.#origin}${this.target(path, masked)}`;
  }

  send(req: AttemptRequest): Promise<RawResponse> {
    // Not async: an await per attempt for the clients that share no pool (the CLI's, the bench's).
    return this.#shared ? this.#sendShared(this.#shared, req) : this.#send(req);
  }

  async #sendShared(slots: Slots, req: AttemptRequest): Promise<RawResponse> {
    this.#inflight++;
    try {
      return await slots.run(() => this.#send(req));
    } finally {
      if (--this.#inflight === 0) for (const done of this.#closing.splice(0)) done();
    }
  }

  async #send(req: AttemptRequest): Promise<RawResponse> {
    const payload = req.body === undefined ? undefined : JSON.stringify(req.body);
    const res = await readResponse(this.#pool, {
      method: req.method,
      path: this.target(req.path, req.query),
      headers: payload === undefined ? this.#headers : this.#jsonHeaders,
      body: payload,
    }, req.signal);
    const json = parseJson(res.text);
    return this.#secrets.length && mayBecomeError(res.status, json) ? this.#scrubbed(res, json) : { ...res, json };
  }

  /**
   * A response whose text may end up in an error, a report, the run history or a log, without this
   * client's credential. Sites and the proxies in front of them do echo request headers in error
   * pages (`Authorization: Basic …` in a 400 or 502 body, a debug dump of `$_SERVER`), and error
   * texts are shown on the dashboard and kept in Redis (test/security/site-echoes-credentials.test.ts).
   */
  #scrubbed(res: Omit<RawResponse, 'json'>, json: unknown): RawResponse {
    let text = res.text;
    for (const secret of this.#secrets) if (text.includes(secret)) text = text.split(secret).join(REDACTED);
    return text === res.text ? { ...res, json } : { ...res, text, json: parseJson(text) };
  }

  async close(): Promise<void> {
    if (!this.#shared) return this.#pool.close();
    if (this.#inflight > 0) await new Promise<void>((resolve) => this.#closing.push(resolve));
  }
}

/**
 * One request through the pool, its response read to the end (so the connection goes back to the
 * pool) as text. A dispatch handler instead of `pool.request()` + `body.text()`: those wrap every
 * response in a Readable stream and an AsyncResource only for the body to be gathered again (a bare
 * loop of by-slug updates spent 30–40% more CPU per request that way than with this handler,
 * sandbox in another process). Same outcome: the status and parsed
 * headers of the final response, the body as UTF-8 without a leading BOM (as `text()` gives it),
 * undici's own errors as they are, and the signal's reason once it aborts
 * (test/contract/read-response.test.ts).
 */
export function readResponse(pool: Dispatcher, opts: Dispatcher.DispatchOptions, signal?: AbortSignal): Promise<Omit<RawResponse, 'json'>> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    pool.dispatch(opts, new TextHandler(resolve, reject, signal));
  });
}

class TextHandler implements Dispatcher.DispatchHandler {
  #status = 0;
  #headers: RawResponse['headers'] = {};
  readonly #chunks: Buffer[] = [];
  #length = 0;
  #controller?: Dispatcher.DispatchController;
  readonly #resolve: (res: Omit<RawResponse, 'json'>) => void;
  readonly #reject: (err: unknown) => void;
  readonly #signal?: AbortSignal;
  /** Set once the signal aborts; before undici started the request, it is aborted as it starts. */
  #reason?: Error;

  constructor(resolve: (res: Omit<RawResponse, 'json'>) => void, reject: (err: unknown) => void, signal?: AbortSignal) {
    this.#resolve = resolve;
    this.#reject = reject;
    this.#signal = signal;
    signal?.addEventListener('abort', this.#onAbort);
  }

  readonly #onAbort = (): void => {
    // The reason as `pool.request()` gives it: the signal's own, whatever it is.
    this.#reason = (this.#signal!.reason as Error | undefined) ?? new errors.RequestAbortedError();
    this.#controller?.abort(this.#reason);
  };

  onRequestStart(controller: Dispatcher.DispatchController): void {
    if (this.#reason !== undefined) controller.abort(this.#reason);
    else this.#controller = controller;
  }

  onResponseStart(_c: Dispatcher.DispatchController, statusCode: number, headers: RawResponse['headers']): void {
    // Also called for an informational answer (1xx) first: the final response's call overwrites it.
    this.#status = statusCode;
    this.#headers = headers;
  }

  onResponseData(_c: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#length += chunk.length;
  }

  onResponseEnd(): void {
    this.#signal?.removeEventListener('abort', this.#onAbort);
    const chunks = this.#chunks;
    const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, this.#length);
    const bom = body.length > 2 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
    this.#resolve({ status: this.#status, headers: this.#headers, text: body.toString('utf8', bom) });
  }

  onResponseError(_c: Dispatcher.DispatchController | null, err: Error): void {
    this.#signal?.removeEventListener('abort', this.#onAbort);
    this.#reject(err);
  }
}

/**
 * Whether a response's text can reach an error: any status but 2xx, a body that is not JSON (its
 * excerpt is quoted), or a 2xx serialized WP_Error (response.ts). Other 2xx bodies are records.
 */
function mayBecomeError(status: number, json: unknown): boolean {
  return status < 200 || status >= 300 || json === undefined || (!!json && typeof json === 'object' && !Array.isArray(json) && 'errors' in json);
}

/**
 * The forms of a credential worth looking for in a response: the base64 token and the secret
 * itself, long enough that replacing them cannot mangle ordinary text.
 */
function echoable(secrets: string[]): string[] {
  return secrets.filter((s) => s.length >= 8);
}

/**
 * JSON, tolerating what WordPress sites put around it: a BOM, and PHP notices printed before the
 * body when `display_errors` is on (`<br /><b>Deprecated</b>: …{"id":1}`).
 */
export function parseJson(text: string): unknown {
  const s = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return JSON.parse(s);
  } catch {
    const start = s.search(/[[{]"?/);
    if (start > 0) {
      try {
        return JSON.parse(s.slice(start));
      } catch {
        return undefined;
      }
    }
    return undefined;
  }
}
