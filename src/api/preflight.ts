import { setTimeout as sleep } from 'node:timers/promises';
import { resolveConnection, type SiteConnection } from './connection.ts';
import { PreflightError } from './errors/preflight-error.ts';
import { networkCode } from './retry.ts';
import { parseRetryAfter } from '../util/retry-after.ts';
import type { ClientStats } from './executor.ts';
import { Transport, type RawResponse } from './transport.ts';

/** What the preflight learned about a site. */
export interface SiteFacts {
  /** The REST index's namespaces. */
  namespaces: string[];
  /** The site's zone setting as WordPress publishes it: an IANA name, or '' when set as an offset. */
  timezoneString?: string;
  /** Hours east of UTC (may be fractional: 5.5). */
  gmtOffset?: number;
  /** What the preflight sent, in the client's counters (a run adds them to its report). */
  requests: ClientStats;
}

export interface PreflightOptions {
  /** The run writes: credentials must be present and allowed to edit events. */
  write: boolean;
  signal?: AbortSignal;
}

/** Namespaces of calendar interfaces this client speaks, to name the right one when --namespace is off. */
const CALENDAR_NAMESPACES = ['tribe/events/v1', 'calendar/events/v1'];

/**
 * One look at a site before any item is read, so a wrong URL, a dead site or a wrong password
 * costs seconds and one clear message instead of one failing request per item:
 *  1. the REST index at the root answers JSON with `namespaces` (WordPress);
 *  2. the calendar namespace is among them;
 *  3. when writing, credentials are present and a list only editors may read is allowed:
 *     `status=draft` is refused (400) to anonymous callers and answered to editors, on real
 *     TEC 6.17 sites and the sandbox alike.
 * The index also publishes the site's zone, the default for floating times.
 */
export async function preflight(conn: SiteConnection, opts: PreflightOptions): Promise<SiteFacts> {
  const resolved = resolveConnection({ ...conn, namespace: '', timeouts: { connectMs: 5_000, headersMs: 15_000, bodyMs: 15_000 } });
  const transport = new Transport(resolved);
  const namespace = resolveConnection(conn).namespace;
  const root = conn.restRoot;
  const stats: ClientStats = { requests: 0, retries: 0, throttled: 0 };
  const get = (path: string, query: Array<[string, string]>) => getWithRetries(transport, { path, query, root, stats, signal: opts.signal, limiter: conn.limiter, onRequest: conn.onRequest, configName: conn.configName, flags: conn.flags });
  try {
    const index = await get('', []);
    rejectCredentials(index, root, conn.auth);
    const json = index.json as { namespaces?: unknown; timezone_string?: unknown; gmt_offset?: unknown } | undefined;
    if (index.status !== 200 || !json || !Array.isArray(json.namespaces)) {
      throw new PreflightError('not-a-rest-root', root, `${root} is not a WordPress REST root (GET answered ${index.status}${json ? '' : ', not JSON'}): give the site's REST root, e.g. https://example.org/wp-json`);
    }
    const namespaces = json.namespaces.filter((n): n is string => typeof n === 'string');
    if (!namespaces.includes(namespace)) throw namespaceMissing(root, namespace, namespaces, conn);
    if (!conn.auth && opts.write) {
      throw new PreflightError('no-credentials', root, `no credentials for ${root}: set CALSYNC_USER and CALSYNC_PASSWORD (an application password), or CALSYNC_TOKEN, or the site's credentials in the config`);
    }
    // A reader's wrong credentials were refused at the index already; edit rights matter to writers.
    if (conn.auth && opts.write) await checkEditRights(get, namespace, root, conn.auth);
    return { namespaces, ...siteZone(json), requests: stats };
  } finally {
    await transport.close();
  }
}

/** Attempts per preflight request: enough to ride out a flaky site, few enough to fail in seconds. */
const ATTEMPTS = 4;
/** A site that refuses the connection or whose name does not resolve is not going to answer on the 4th try. */
const DEFINITIVE = new Set(['ECONNREFUSED', 'ENOTFOUND']);

/**
 * One GET, repeated on what a live but busy site answers (429 with its Retry-After, capped; 5xx;
 * a dropped connection). A site still failing after that is reported as such, never as "not a
 * REST root".
 */
interface PreflightGet extends Pick<SiteConnection, 'limiter' | 'onRequest' | 'configName' | 'flags'> {
  path: string;
  query: Array<[string, string]>;
  root: string;
  stats: ClientStats;
  signal?: AbortSignal;
}

/** The site's request limit and request metrics cover the preflight too: it is a request like any other. */
function report(g: PreflightGet, status: number | 'network-error', started: number, attempt: number): void {
  try {
    g.onRequest?.({ method: 'GET', route: `/${g.path}`, status, durationMs: performance.now() - started, attempt });
  } catch {
    // A metrics hook must never change the outcome of a call.
  }
}

async function getWithRetries(transport: Transport, g: PreflightGet): Promise<RawResponse> {
  const { path, query, root, stats, signal } = g;
  for (let attempt = 1; ; attempt++) {
    stats.requests++;
    if (attempt > 1) stats.retries++;
    let wait = Math.min(2_000, 250 * 2 ** (attempt - 1));
    await g.limiter?.acquire(signal);
    const started = performance.now();
    try {
      const res = await transport.send({ method: 'GET', path, query, signal });
      report(g, res.status, started, attempt);
      if (res.status === 429) stats.throttled++;
      const busy = res.status === 429 || res.status >= 500;
      if (!busy) return res;
      if (attempt >= ATTEMPTS) throw new PreflightError('unreachable', root, `${root} is failing: GET /${path} answered ${res.status} ${ATTEMPTS} times in a row; try again later`);
      const after = parseRetryAfter(res.headers['retry-after']);
      if (after !== undefined) wait = Math.min(5_000, after + 50);
    } catch (err) {
      if (!(err instanceof PreflightError)) report(g, 'network-error', started, attempt);
      if (err instanceof PreflightError || signal?.aborted) throw err;
      if (attempt >= ATTEMPTS || (attempt >= 2 && DEFINITIVE.has(networkCode(err)))) throw unreachable(root, err, g);
    }
    await sleep(wait, undefined, { signal });
  }
}

function unreachable(root: string, err: unknown, named: Pick<SiteConnection, 'configName' | 'flags'>): PreflightError {
  const code = networkCode(err);
  const origin = new URL(root).origin;
  const what =
    code === 'ECONNREFUSED'
      ? `nothing listens at ${origin} (connection refused)`
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? `the host of ${origin} is not known (DNS: ${code})`
        : code.includes('TIMEOUT')
          ? `${origin} did not answer in time (${code})`
          : `${origin} could not be reached (${code})`;
  const check = named.configName ? `the restRoot of the config's site "${named.configName}"` : (named.flags?.site ?? '--site');
  return new PreflightError('unreachable', root, `${what}: check ${check} and that the site is running`, { cause: err });
}

/**
 * WordPress refuses every request, the index included, when Basic credentials are wrong. The
 * message names where they were read (a config site's variable, or the environment's), since
 * that is what the user has to fix.
 */
function rejectCredentials(res: RawResponse, root: string, auth: SiteConnection['auth']): void {
  const code = (res.json as { code?: unknown } | undefined)?.code;
  if (res.status === 401 && (code === 'incorrect_password' || code === 'invalid_username' || code === 'invalid_token')) {
    const check = auth?.from ?? 'CALSYNC_USER and CALSYNC_PASSWORD (or CALSYNC_TOKEN)';
    throw new PreflightError('credentials-rejected', root, `${root} refused the credentials (${code}): wrong user or application password; check ${check}`);
  }
}

function namespaceMissing(root: string, namespace: string, namespaces: string[], named: Pick<SiteConnection, 'configName' | 'flags'>): PreflightError {
  const found = CALENDAR_NAMESPACES.find((n) => namespaces.includes(n));
  const fix = named.configName ? `set "namespace": "${found}" on the config's site "${named.configName}"` : `add ${named.flags?.namespace ?? '--namespace'} ${found}`;
  if (found) return new PreflightError('namespace-missing', root, `${root} has no ${namespace} namespace; its REST index has ${found}: ${fix}`);
  return new PreflightError('namespace-missing', root, `${root} is not a calendar site: no ${namespace} in its REST index (it has ${namespaces.join(', ') || 'none'})`);
}

async function checkEditRights(get: (path: string, query: Array<[string, string]>) => Promise<RawResponse>, namespace: string, root: string, auth: NonNullable<SiteConnection['auth']>): Promise<void> {
  const list = await get(`${namespace}/events`, [['status', 'draft'], ['per_page', '1']]);
  rejectCredentials(list, root, auth);
  if (list.status === 200) return;
  const user = auth.kind === 'basic' ? `user "${auth.user}"` : 'the token';
  const code = (list.json as { code?: unknown } | undefined)?.code;
  throw new PreflightError('not-allowed', root, `${root}: ${user} may not edit events (GET ${namespace}/events?status=draft answered ${list.status}${typeof code === 'string' ? ` ${code}` : ''}); use an account with edit rights`);
}

function siteZone(json: { timezone_string?: unknown; gmt_offset?: unknown }): Pick<SiteFacts, 'timezoneString' | 'gmtOffset'> {
  const offset = json.gmt_offset === '' || json.gmt_offset === null ? Number.NaN : Number(json.gmt_offset);
  return {
    ...(typeof json.timezone_string === 'string' ? { timezoneString: json.timezone_string } : {}),
    ...(Number.isFinite(offset) ? { gmtOffset: offset } : {}),
  };
}
