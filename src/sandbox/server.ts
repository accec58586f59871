import { createHash } from 'node:crypto';
import { wpV2Delete, wpV2Get, wpV2Route } from './wp-v2.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LANGUAGES } from '../model/languages.ts';
import { authenticate, type Credentials } from './auth.ts';
import type { Ctx, SiteConfig } from './context.ts';
import { siteIndex } from './discovery.ts';
import { ApiError, invalidJson, noRoute } from './errors.ts';
import { FaultSettings, type FaultPlan } from './faults.ts';
import { parsePhpQuery, type Params } from './params.ts';
import { METHODS, allowed, dispatch, matchRoute, type Method } from './router.ts';
import type { RenderCtx } from './shapes.ts';
import type { StatsRecorder } from './stats.ts';
import type { Store } from './store.ts';
import { CRITICAL_ERROR, filterFields, requestedFields } from './fields.ts';
import { unslash, unslashesBody } from './slashes.ts';

export interface ServerDeps {
  store: Store;
  site: SiteConfig;
  stats: StatsRecorder;
  faults: FaultPlan;
  creds: Credentials;
  /** the test helpers behind /__sandbox/dump */
  dump: (lang: string) => unknown;
}

const MAX_BODY = 32 * 1024 * 1024;
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const JSON_TYPE = 'application/json; charset=UTF-8';

interface Target {
  /** path inside the REST root, without trailing slash: '' | '/tribe/events/v1/events' … */
  restPath: string;
  restRoot: string;
  langSegment?: string;
}

/** `/wp-json/…`, `/<lang>/wp-json/…` or `?rest_route=/…`; anything else is not the REST API. */
function restTarget(url: URL, origin: string): Target | undefined {
  let path = url.pathname;
  let langSegment: string | undefined;
  const seg = /^\/([a-z]{2})(\/.*)?$/.exec(path);
  if (seg && (LANGUAGES as readonly string[]).includes(seg[1])) {
    langSegment = seg[1];
    path = seg[2] ?? '/';
  }
  const restRoot = `${origin}${langSegment ? `/${langSegment}` : ''}/wp-json`;
  let restPath: string | undefined;
  if (path === '/wp-json' || path.startsWith('/wp-json/')) restPath = path.slice('/wp-json'.length);
  else if ((path === '/' || path === '/index.php') && url.searchParams.has('rest_route')) restPath = url.searchParams.get('rest_route') ?? '';
  if (restPath === undefined) return undefined;
  return { restPath: restPath.replace(/\/+$/, ''), restRoot, langSegment };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new ApiError(413, 'rest_request_too_large', 'The request body is too large.'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** JSON or form bodies, both as WordPress reads them; a JSON syntax error is kept for later. */
function parseBody(req: IncomingMessage, raw: Buffer): { body: Params; jsonError?: string } {
  if (raw.length === 0) return { body: {} };
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  const text = raw.toString('utf8');
  if (type.includes('application/x-www-form-urlencoded')) return { body: parsePhpQuery(new URLSearchParams(text)) };
  if (type.includes('json') || (!type && /^\s*[{[]/.test(text))) {
    try {
      const v: unknown = JSON.parse(text);
      return { body: typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Params) : {} };
    } catch (e) {
      return { body: {}, jsonError: (e as Error).message };
    }
  }
  return { body: {} };
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(text), 'X-Robots-Tag': 'noindex', ...headers });
  res.end(text);
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The `http.createServer` handler. */
export function createHandler(deps: ServerDeps): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(deps, req, res).catch((err: unknown) => {
      if (res.headersSent || res.destroyed) return;
      if (err instanceof ApiError) send(res, err.status, err.body());
      else send(res, 500, { code: 'internal_server_error', message: String((err as Error)?.message ?? err), data: { status: 500 } });
    });
  };
}

async function handle(deps: ServerDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const host = req.headers.host ?? '127.0.0.1';
  const origin = `http://${host}`;
  const url = new URL(req.url ?? '/', origin);
  if (url.pathname.startsWith('/__sandbox/')) return sideEndpoint(deps, req, res, url);

  const target = restTarget(url, origin);
  if (!target) {
    res.writeHead(404, { 'Content-Type': 'text/html; charset=UTF-8' });
    res.end('<!doctype html><title>Page not found</title><h1>Not found</h1>');
    return;
  }
  const method = requestMethod(req, url);
  const route = resolveRoute(deps, target);
  const arrived = performance.now();
  deps.stats.request(method, route.key, Boolean(route.matched) && WRITE_METHODS.has(method), arrived);
  // Counted before the body is read: the arrival time is when the request came, in arrival order.
  const raw = await readBody(req);
  const identity = requestIdentity(method, url, raw);
  deps.stats.arrived(identity, arrived);
  if (await injectFault(deps, req, res, identity)) return;

  const auth = authenticate(req.headers.authorization, deps.creds);
  if (auth instanceof ApiError) throw auth;
  if (outsideNamespace(deps, res, { method, url, origin, target, wpType: route.wpType, authed: auth })) return;
  if (!route.matched || !route.ns) throw noRoute();
  answerRoute(deps, req, res, { method, url, origin, target, raw, authed: auth, ns: route.ns, matched: route.matched });
}

/** What makes a repeat of a request the same request: method, path, query and a digest of the body. */
function requestIdentity(method: string, url: URL, raw: Buffer): string {
  return `${method} ${url.pathname}${url.search} ${raw.length ? createHash('sha1').update(raw).digest('base64') : ''}`;
}

/** The request's method, after WordPress's verb tunnelling for hosts that block PUT/PATCH/DELETE. */
function requestMethod(req: IncomingMessage, url: URL): string {
  const method = (req.method ?? 'GET').toUpperCase();
  const override = (url.searchParams.get('_method') ?? (req.headers['x-http-method-override'] as string | undefined))?.toUpperCase();
  return method === 'POST' && override && (METHODS as readonly string[]).includes(override) ? override : method;
}

type Matched = NonNullable<ReturnType<typeof matchRoute>>;

/** The namespace and route a REST path falls in, and the key it is counted under in the stats. */
function resolveRoute(deps: ServerDeps, target: Target): { ns?: string; matched?: Matched; wpType?: ReturnType<typeof wpV2Route>; key: string } {
  const ns = deps.site.namespaces.find((n) => target.restPath === `/${n}` || target.restPath.startsWith(`/${n}/`));
  const sub = ns ? target.restPath.slice(ns.length + 1) : undefined;
  const matched = sub === undefined ? undefined : matchRoute(sub);
  const wpType = wpV2Route(target.restPath);
  const key = matched ? matched.route.template || '/' : target.restPath === '' ? '(site index)' : target.restPath === '/wp/v2/users/me' ? '/wp/v2/users/me' : wpType ? `/wp/v2/${wpType.type}${wpType.id === undefined ? '' : '/:id'}` : '(no route)';
  return { ns, matched, wpType, key };
}

/** Applies the next configured delay and fault; true when the fault answered (or dropped) the request. */
async function injectFault(deps: ServerDeps, req: IncomingMessage, res: ServerResponse, identity: string): Promise<boolean> {
  const { delayMs, fault } = deps.faults.next();
  if (delayMs > 0) await sleep(delayMs);
  if (fault.kind === 'drop') {
    deps.stats.fault('drop');
    req.socket.destroy();
    return true;
  }
  if (fault.kind === 'throttle') {
    deps.stats.fault('throttle');
    deps.stats.throttled(identity, performance.now() + fault.retryAfter * 1000, performance.now());
    send(res, 429, { code: 'rest_too_many_requests', message: 'Too many requests, slow down.', data: { status: 429 } },
      { 'Retry-After': String(fault.retryAfter) });
    return true;
  }
  if (fault.kind === 'error') {
    deps.stats.fault('error');
    if (fault.status === 500) {
      send(res, 500, CRITICAL_ERROR);
    } else {
      // Gateways in front of real sites answer these in HTML, not JSON.
      res.writeHead(fault.status, { 'Content-Type': 'text/html' });
      res.end(`<html><head><title>${fault.status}</title></head><body><h1>${fault.status === 502 ? 'Bad Gateway' : 'Service Unavailable'}</h1></body></html>`);
    }
    return true;
  }
  return false;
}

interface SandboxRequest {
  method: string;
  url: URL;
  origin: string;
  target: Target;
  authed: boolean;
}

/** The site index, `users/me`, the wp/v2 post lists and their deletes; true when the request was one of those. */
function outsideNamespace(deps: ServerDeps, res: ServerResponse, r: SandboxRequest & { wpType: ReturnType<typeof wpV2Route> }): boolean {
  const { method, target, authed } = r;
  if (target.restPath === '') {
    send(res, 200, siteIndex(target.restRoot, r.origin, deps.site.namespaces, deps.site.siteTimezone));
    return true;
  }
  if (target.restPath === '/wp/v2/users/me' && method === 'GET') {
    if (!authed) throw new ApiError(401, 'rest_not_logged_in', 'You are not currently logged in.');
    send(res, 200, { id: 1, name: deps.creds.user, slug: deps.creds.user });
    return true;
  }
  if (r.wpType && method === 'GET') {
    const query = parsePhpQuery(r.url.searchParams);
    const queryLang = typeof query.ml_language === 'string' && (LANGUAGES as readonly string[]).includes(query.ml_language) ? query.ml_language : 'en';
    const reply = wpV2Get(deps.store, deps.site, r.wpType, query, authed, target.langSegment ?? queryLang);
    const answer = filterFields(reply, requestedFields(query));
    send(res, answer.status, answer.body, reply.headers);
    return true;
  }
  if (r.wpType && method === 'DELETE') {
    const reply = wpV2Delete(deps.store, r.wpType, parsePhpQuery(r.url.searchParams), authed);
    send(res, reply.status, reply.body);
    return true;
  }
  return false;
}

/** A request to a route of the calendar namespace: parameters merged as WordPress does, then the route's handler. */
function answerRoute(deps: ServerDeps, req: IncomingMessage, res: ServerResponse, r: SandboxRequest & { raw: Buffer; ns: string; matched: Matched }): void {
  const { method, url, target, matched, authed, ns } = r;
  const query = parsePhpQuery(url.searchParams);
  delete query.rest_route;
  const parsed = method === 'GET' ? { body: {} } : parseBody(req, r.raw);
  const { jsonError } = parsed;
  const body = unslashesBody(matched.route.template) ? (unslash(parsed.body) as Params) : parsed.body;
  // Route captures win over body and query (WordPress would let the body override them).
  const params: Params = { ...query, ...body, ...matched.path };
  const queryLang = typeof params.ml_language === 'string' ? params.ml_language : undefined;
  const lang = target.langSegment ?? (queryLang && (LANGUAGES as readonly string[]).includes(queryLang) ? queryLang : 'en');
  const rc: RenderCtx = { origin: r.origin, host: url.hostname, restRoot: target.restRoot, namespace: ns, lang };
  const ctx: Ctx = { method, params, query, path: matched.path, lang, authed, rc, site: deps.site, store: deps.store };
  const allow = allowed(matched.route, authed);

  try {
    if (jsonError !== undefined && matched.route.methods[method as Method]) throw invalidJson(jsonError);
    const reply = dispatch(matched.route, method as Method, ctx);
    const answer = filterFields(reply, requestedFields(query));
    send(res, answer.status, answer.body, { ...(allow ? { Allow: allow } : {}), ...reply.headers });
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    send(res, err.status, err.body(), err.code === 'rest_no_route' || !allow ? {} : { Allow: allow });
  }
}

async function sideEndpoint(deps: ServerDeps, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const raw = await readBody(req);
  const route = `${req.method} ${url.pathname.replace(/\/+$/, '')}`;
  switch (route) {
    case 'GET /__sandbox/stats':
      return send(res, 200, deps.stats.snapshot());
    case 'POST /__sandbox/stats/reset':
      deps.stats.reset();
      return send(res, 200, deps.stats.snapshot());
    case 'POST /__sandbox/faults': {
      let input: unknown = {};
      try {
        if (raw.length) input = JSON.parse(raw.toString('utf8'));
      } catch {
        return send(res, 400, { code: 'invalid_json', message: 'The body is not JSON.' });
      }
      const parsed = FaultSettings.safeParse(input);
      if (!parsed.success) return send(res, 400, { code: 'invalid_faults', message: parsed.error.message });
      deps.faults.update(parsed.data);
      return send(res, 200, deps.faults.settings);
    }
    case 'GET /__sandbox/dump':
      return send(res, 200, deps.dump(url.searchParams.get('ml_language') ?? 'en'));
    case 'POST /__sandbox/reset':
      deps.store.clear();
      return send(res, 200, { reset: true });
    default:
      return send(res, 404, { code: 'not_found', message: `No sandbox endpoint ${route}` });
  }
}
