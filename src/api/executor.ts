import { setTimeout as sleep } from 'node:timers/promises';
import type { CallOptions, ResolvedConnection } from './connection.ts';
import {
  ApiError,
  NetworkError,
  RequestValidationError,
  ResponseFormatError,
  SiteDownError,
  SlugMismatchError,
  TimeoutError,
  type TimeoutKind,
} from './errors/index.ts';
import { errorFromResponse, errorFromSuccessBody, excerptOf, mayBeSerializedError, type ResponseContext } from './response.ts';
import {
  backoffDelay,
  decideAfterNetworkError,
  decideAfterStatus,
  networkCode,
  type Decision,
  type RetryKind,
} from './retry.ts';
import { parseRetryAfter } from '../util/retry-after.ts';
import { isSiteFailure } from './breaker.ts';
import type { AttemptRequest, RawResponse, Transport } from './transport.ts';

/**
 * Runs one logical call: the attempt loop with limiter, Retry-After gate, backoff, the whole-call
 * deadline, create verification, statistics and the metrics hook.
 */

export interface CallSpec<T> {
  method: AttemptRequest['method'];
  /** Route template for errors and metrics: `/events/by-slug/:slug`. */
  route: string;
  /** Concrete encoded path under the namespace. */
  path: string;
  query?: Array<[string, string]>;
  body?: unknown;
  kind: RetryKind;
  notFoundParams?: readonly string[];
  /** Turns a 2xx JSON body into the result; a thrown error becomes a ResponseFormatError. */
  parse: (json: unknown, res: RawResponse) => T;
  /**
   * For creates: looks for the record after a failure that may or may not have landed. Found →
   * it is the result; null → the create is repeated. Without it such failures are thrown.
   */
  verify?: (signal: AbortSignal) => Promise<T | null>;
  /** Error responses the caller turns into a result instead (paging's end-of-archive 404). */
  recover?: (err: ApiError) => T | undefined;
}

export interface ClientStats {
  /** Attempts sent (every retry counts). */
  requests: number;
  /** Attempts repeated after a failure. */
  retries: number;
  /** 429 answers received. */
  throttled: number;
}

/** Extra wait on top of Retry-After, so timer and clock granularity never make us early. */
const RETRY_AFTER_MARGIN_MS = 50;

const TIMEOUT_KINDS: Record<string, TimeoutKind> = {
  UND_ERR_CONNECT_TIMEOUT: 'connect',
  UND_ERR_HEADERS_TIMEOUT: 'headers',
  UND_ERR_BODY_TIMEOUT: 'body',
};

function isTyped(err: unknown): boolean {
  return (
    err instanceof ApiError ||
    err instanceof NetworkError ||
    err instanceof ResponseFormatError ||
    err instanceof RequestValidationError ||
    err instanceof SlugMismatchError ||
    err instanceof SiteDownError
  );
}

/**
 * Where a call goes, for its errors. The display URL is built on first read: a call that succeeds
 * (nearly all of them) never needs it, and building it cost a query copy and a string per call.
 */
class Where {
  readonly method: AttemptRequest['method'];
  readonly route: string;
  #url: string | undefined;
  readonly #urlOf: () => string;
  constructor(method: AttemptRequest['method'], route: string, urlOf: () => string) {
    this.method = method;
    this.route = route;
    this.#urlOf = urlOf;
  }
  get url(): string {
    return (this.#url ??= this.#urlOf());
  }
  /** A plain copy for errors (`{ ...where }` would miss `url`: a prototype getter is not an own property). */
  plain(): { method: AttemptRequest['method']; route: string; url: string } {
    return { method: this.method, route: this.route, url: this.url };
  }
}

/** One logical call's fixed parts. */
interface Call {
  query: Array<[string, string]>;
  where: Where;
  totalMs: number;
  deadlineAt: number;
  deadline: AbortSignal;
  /** Cleared when the call ends (see #start). */
  timer: NodeJS.Timeout;
  signal: AbortSignal;
}

/** How one attempt ended: with the call's result, or a failure and the retry decision for it. */
type Outcome<T> = { result: T } | { failure: Error; decision: Decision; retryAfterMs?: number };

export class Executor {
  readonly #conn: ResolvedConnection;
  readonly #transport: Transport;
  readonly #stats: ClientStats = { requests: 0, retries: 0, throttled: 0 };
  /**
   * No attempt to this site leaves before this instant. Set from Retry-After, shared by every
   * call of the client: a throttled site is throttled for all our concurrent requests, not only
   * for the one that was told.
   */
  #notBefore = 0;

  constructor(conn: ResolvedConnection, transport: Transport) {
    this.#conn = conn;
    this.#transport = transport;
  }

  stats(): ClientStats {
    return { ...this.#stats };
  }

  get breaker() {
    return this.#conn.breaker;
  }

  async call<T>(spec: CallSpec<T>, opts: CallOptions = {}): Promise<T> {
    if (spec.method !== 'GET' && this.#conn.gate) await this.#conn.gate.wait();
    const c = this.#start(spec, opts);
    let attempt = 0;
    try {
      c.signal.throwIfAborted();
      for (;;) {
        attempt++;
        await this.#admit(c.signal);
        const outcome = await this.#attempt(spec, c, attempt);
        if ('result' in outcome) return outcome.result;
        const { failure, decision } = outcome;
        if (decision === 'fail' || attempt > this.#conn.retry.maxRetries) throw failure;
        await this.#backoff(attempt, outcome.retryAfterMs, c, failure);
        if (decision === 'verify' && spec.verify) {
          const found = await spec.verify(c.signal);
          if (found !== null) return found;
        }
        this.#stats.retries++;
      }
    } catch (err) {
      throw this.#callError(err, opts, c, attempt);
    } finally {
      clearTimeout(c.timer);
    }
  }

  /** The call's query (with its language), display URL, and the signal that ends it at the deadline. */
  #start(spec: CallSpec<unknown>, opts: CallOptions): Call {
    const lang = opts.lang ?? this.#conn.language;
    const query: Array<[string, string]> = [...(spec.query ?? [])];
    if (lang) query.push(['ml_language', lang]);
    const { totalMs } = this.#conn.timeouts;
    const deadlineAt = Date.now() + totalMs;
    // Not AbortSignal.timeout: its timer outlives the call (120 s by default), so a busy client
    // keeps tens of thousands of them alive; this one is cleared when the call ends.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), totalMs);
    timer.unref();
    const signal = opts.signal ? AbortSignal.any([opts.signal, deadline.signal]) : deadline.signal;
    const where = new Where(spec.method, spec.route, () => this.#transport.displayUrl(spec.path, query));
    return { query, where, totalMs, deadlineAt, deadline: deadline.signal, timer, signal };
  }

  /** Waits until an attempt may leave: breaker closed, Retry-After gate passed, limiter slot taken. */
  async #admit(signal: AbortSignal): Promise<void> {
    this.#conn.breaker.check();
    // Awaited only when there is something to wait for: each await costs a turn of the loop.
    if (this.#notBefore > Date.now()) await this.#waitGate(signal);
    if (this.#conn.limiter) {
      await this.#conn.limiter.acquire(signal);
      // The limiter may have held us while another call was told to back off.
      await this.#waitGate(signal);
    }
  }

  /** One attempt: the call's result, or the failure with what to do about it. */
  async #attempt<T>(spec: CallSpec<T>, c: Call, attempt: number): Promise<Outcome<T>> {
    const started = this.#conn.onRequest ? performance.now() : 0; // only the metrics hook reads it
    this.#stats.requests++;
    let res: RawResponse;
    try {
      res = await this.#transport.send({ method: spec.method, path: spec.path, query: c.query, body: spec.body, signal: c.signal });
    } catch (err) {
      if (c.signal.aborted) throw err;
      const code = networkCode(err);
      this.#report(spec, 'network-error', started, attempt);
      const failure = this.#networkError(code, err, c.where.plain(), attempt);
      this.#conn.breaker.failed(`${spec.method} ${spec.route} → network error ${code}`);
      return { failure, decision: decideAfterNetworkError(code, spec.kind, spec.verify !== undefined) };
    }
    return this.#afterResponse(spec, res, c, started, attempt);
  }

  /** Where an attempt's response came from, for the error it may become (built only then). */
  #context(spec: CallSpec<unknown>, c: Call, attempt: number): ResponseContext {
    return { ...c.where.plain(), attempts: attempt, notFoundParams: spec.notFoundParams };
  }

  #afterResponse<T>(spec: CallSpec<T>, res: RawResponse, c: Call, started: number, attempt: number): Outcome<T> {
    let retryAfterMs: number | undefined;
    if (res.status === 429 || res.status === 503) retryAfterMs = parseRetryAfter(res.headers['retry-after']);
    if (res.status === 429) this.#stats.throttled++;
    this.#report(spec, res.status, started, attempt, retryAfterMs);
    if (res.status >= 200 && res.status < 300) {
      this.#conn.breaker.succeeded();
      return { result: this.#success(spec, res, c, attempt) };
    }
    const err = errorFromResponse(res, this.#context(spec, c, attempt));
    if (isSiteFailure(res.status, err.code)) this.#conn.breaker.failed(`${spec.method} ${spec.route} → ${res.status} ${err.code}`);
    else this.#conn.breaker.succeeded();
    const recovered = spec.recover?.(err);
    if (recovered !== undefined) return { result: recovered };
    return { failure: err, decision: decideAfterStatus(res.status, spec.kind, spec.verify !== undefined), retryAfterMs };
  }

  /** Sleeps before the next attempt (backoff, or longer when told by Retry-After); throws `failure` when that would pass the deadline. */
  async #backoff(attempt: number, retryAfterMs: number | undefined, c: Call, failure: Error): Promise<void> {
    let wait = backoffDelay(attempt - 1, this.#conn.retry);
    if (retryAfterMs !== undefined) {
      const until = Date.now() + retryAfterMs + RETRY_AFTER_MARGIN_MS;
      if (until > this.#notBefore) this.#notBefore = until;
      wait = Math.max(wait, retryAfterMs + RETRY_AFTER_MARGIN_MS);
    }
    // Waiting past the deadline only to time out would hide the real cause: give it now.
    if (Date.now() + wait >= c.deadlineAt) throw failure;
    await sleep(wait, undefined, { signal: c.signal });
  }

  /** What a call throws: typed errors as they are, the caller's abort reason, or a total timeout. */
  #callError(err: unknown, opts: CallOptions, c: Call, attempt: number): unknown {
    if (isTyped(err)) return err;
    if (opts.signal?.aborted) return opts.signal.reason;
    if (c.deadline.aborted) {
      return new TimeoutError({ ...c.where.plain(), code: 'DEADLINE', attempts: attempt, kind: 'total', timeoutMs: c.totalMs, cause: err });
    }
    return err;
  }

  #success<T>(spec: CallSpec<T>, res: RawResponse, c: Call, attempt: number): T {
    const serialized = mayBeSerializedError(res.json) ? errorFromSuccessBody(res, this.#context(spec, c, attempt)) : undefined;
    if (serialized) {
      const recovered = spec.recover?.(serialized);
      if (recovered !== undefined) return recovered;
      throw serialized;
    }
    if (res.json === undefined) {
      throw new ResponseFormatError({ ...this.#context(spec, c, attempt), status: res.status, problem: 'body is not JSON', excerpt: excerptOf(res.text) });
    }
    try {
      return spec.parse(res.json, res);
    } catch (err) {
      if (isTyped(err)) throw err;
      const problem = err instanceof Error ? err.message.replace(/\s+/g, ' ').slice(0, 500) : String(err);
      throw new ResponseFormatError({ ...this.#context(spec, c, attempt), status: res.status, problem, excerpt: res.text.slice(0, 200) });
    }
  }

  #networkError(code: string, cause: unknown, where: { method: string; route: string; url: string }, attempts: number): NetworkError {
    const kind = TIMEOUT_KINDS[code];
    if (kind) {
      const t = this.#conn.timeouts;
      const timeoutMs = kind === 'connect' ? t.connectMs : kind === 'headers' ? t.headersMs : t.bodyMs;
      return new TimeoutError({ ...where, code, attempts, cause, kind, timeoutMs });
    }
    return new NetworkError({ ...where, code, attempts, cause });
  }

  async #waitGate(signal: AbortSignal): Promise<void> {
    for (let guard = 0; guard < 100; guard++) {
      const wait = this.#notBefore - Date.now();
      if (wait <= 0) return;
      await sleep(wait, undefined, { signal });
    }
  }

  #report<T>(spec: CallSpec<T>, status: number | 'network-error', started: number, attempt: number, retryAfterMs?: number): void {
    const hook = this.#conn.onRequest;
    if (!hook) return;
    try {
      hook({ method: spec.method, route: spec.route, status, durationMs: performance.now() - started, attempt, retryAfterMs });
    } catch {
      // A metrics hook must never change the outcome of a call.
    }
  }
}
