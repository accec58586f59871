import type { Language } from '../model/languages.ts';
import { CircuitBreaker } from './breaker.ts';

/** How to reach one site. Credentials come from config/env, never from a job payload. */
export interface SiteConnection {
  /** The site's REST root, e.g. `http://127.0.0.1:8787/wp-json` or `https://site/fr/wp-json` (language segment). */
  restRoot: string;
  /** Default `calendar/events/v1`; real sites use `tribe/events/v1`. */
  namespace?: string;
  /** HTTP Basic with a WordPress application password, or a bearer token. */
  /**
   * `from` names where the credentials were read (`CALSYNC_USER and CALSYNC_PASSWORD`, a config
   * site's variable), so a refusal can say what to fix; never the secret itself.
   */
  auth?: { kind: 'basic'; user: string; password: string; from?: string } | { kind: 'bearer'; token: string; from?: string };
  /**
   * Where the site was named, for a message that says what to fix: a config site's name (its
   * `restRoot` and `namespace` are in the config); absent for `--site URL`.
   */
  configName?: string;
  /**
   * The command-line options that gave a site named by URL (`--from`/`--from-namespace` for a
   * sync's source), for the same purpose. @defaultValue `--site` and `--namespace`
   */
  flags?: { site: string; namespace: string };
  /** Default `ml_language` for every call; a call's `lang` overrides it. */
  language?: Language;
  /** undici Pool connection cap (default 8). */
  connections?: number;
  /** connect / headers / body are per attempt (undici timers), total is the whole call with retries. */
  timeouts?: { connectMs?: number; headersMs?: number; bodyMs?: number; totalMs?: number };
  retry?: { maxRetries?: number; minDelayMs?: number; maxDelayMs?: number };
  userAgent?: string;
  /** An external rate limiter, awaited before every attempt (retries included). */
  limiter?: { acquire(signal?: AbortSignal): Promise<void> };
  /** Metrics hook, called once per attempt. Exceptions it throws are ignored. */
  onRequest?: (info: RequestInfo) => void;
  /** Shared by the clients of one run, so a dead site opens it once for all (default: one per client). */
  breaker?: CircuitBreaker;
  /**
   * Keep-alive connections from the process's pool for this origin and these options (pools.ts),
   * instead of a pool of the client's own: for hosts that build a client per job (the worker).
   */
  sharePool?: boolean;
  /**
   * Awaited before every call that writes (any method but GET), before its deadline starts: a run
   * that plans before it may write holds its writes here (src/write/gate.ts). Rejecting fails the call.
   */
  gate?: { wait(): Promise<void> };
}

export interface RequestInfo {
  method: string;
  /** Route template (`/events/:id`), never the concrete URL. */
  route: string;
  status: number | 'network-error';
  durationMs: number;
  /** 1-based. */
  attempt: number;
  /** Set when the site asked to wait (429/503 `Retry-After`). */
  retryAfterMs?: number;
}

export interface CallOptions {
  lang?: Language;
  signal?: AbortSignal;
}

export interface Page<T> {
  items: T[];
  total: number;
  totalPages: number;
  page: number;
}

export const DEFAULT_NAMESPACE = 'calendar/events/v1';

/** SiteConnection with every default filled in. */
export interface ResolvedConnection {
  restRoot: string;
  namespace: string;
  auth?: SiteConnection['auth'];
  language?: Language;
  connections: number;
  timeouts: { connectMs: number; headersMs: number; bodyMs: number; totalMs: number };
  retry: { maxRetries: number; minDelayMs: number; maxDelayMs: number };
  userAgent: string;
  limiter?: SiteConnection['limiter'];
  onRequest?: SiteConnection['onRequest'];
  breaker: CircuitBreaker;
  sharePool?: boolean;
  gate?: SiteConnection['gate'];
}

export function resolveConnection(conn: SiteConnection): ResolvedConnection {
  return {
    restRoot: conn.restRoot,
    namespace: (conn.namespace ?? DEFAULT_NAMESPACE).replace(/^\/+|\/+$/g, ''),
    auth: conn.auth,
    language: conn.language,
    connections: conn.connections ?? 8,
    timeouts: {
      connectMs: conn.timeouts?.connectMs ?? 10_000,
      headersMs: conn.timeouts?.headersMs ?? 30_000,
      bodyMs: conn.timeouts?.bodyMs ?? 30_000,
      totalMs: conn.timeouts?.totalMs ?? 120_000,
    },
    retry: {
      maxRetries: conn.retry?.maxRetries ?? 5,
      minDelayMs: conn.retry?.minDelayMs ?? 250,
      maxDelayMs: conn.retry?.maxDelayMs ?? 30_000,
    },
    userAgent: conn.userAgent ?? 'calsync/0.1 (+https://github.com/calsync/calsync)',
    limiter: conn.limiter,
    onRequest: conn.onRequest,
    breaker: conn.breaker ?? new CircuitBreaker(new URL(conn.restRoot).origin),
    sharePool: conn.sharePool,
    gate: conn.gate,
  };
}
