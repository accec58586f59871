import { LANGUAGES } from '../model/languages.ts';
import { has, type Ctx, type Endpoint, type Reply } from './context.ts';
import { docEndpoint, namespaceIndex } from './discovery.ts';
import { forbidden, invalidParams, missingParams, noRoute } from './errors.ts';
import { eventEndpoints as ev } from './events.ts';
import { organizerEndpoints as org } from './organizers.ts';
import { categoryEndpoints as cat, tagEndpoints as tag } from './terms.ts';
import { venueEndpoints as ven } from './venues.ts';

export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type Method = (typeof METHODS)[number];

export interface Route {
  /** stats key, e.g. `/events/by-slug/:slug` */
  template: string;
  /** the WordPress route regex as the namespace index shows it */
  wpPattern: string;
  re: RegExp;
  methods: Partial<Record<Method, Endpoint>>;
}

const ID = '(?P<id>\\d+)';
const SLUG = '(?P<slug>[^/]+)';

function route(template: string, methods: Partial<Record<Method, Endpoint>>): Route {
  const wpPattern = template.replace(':id', ID).replace(':slug', SLUG);
  const re = new RegExp(`^${template.replace(':id', '(?<id>\\d+)').replace(':slug', '(?<slug>[^/]+)')}$`, 'i');
  return { template, wpPattern, re, methods };
}

const indexEndpoint: Endpoint = {
  auth: false,
  args: { namespace: { default: 'calendar/events/v1' }, context: { default: 'view' } },
  handle: (ctx) => namespaceIndex(ROUTES, ctx),
};

const edit = (e: Endpoint): Partial<Record<Method, Endpoint>> => ({ POST: e, PUT: e, PATCH: e });

/** Every route of the namespace, in the order WordPress registers them. */
export const ROUTES: Route[] = [
  route('', { GET: indexEndpoint }),
  route('/doc', { GET: docEndpoint }),
  route('/events', { GET: ev.list, POST: ev.create }),
  route('/events/:id', { GET: ev.read, DELETE: ev.remove, ...edit(ev.update) }),
  route('/events/by-slug/:slug', { GET: ev.readBySlug, DELETE: ev.removeBySlug, ...edit(ev.updateBySlug) }),
  route('/venues', { GET: ven.list, POST: ven.create }),
  route('/venues/:id', { GET: ven.read, DELETE: ven.remove, ...edit(ven.update) }),
  route('/venues/by-slug/:slug', { GET: ven.readBySlug, DELETE: ven.removeBySlug, ...edit(ven.updateBySlug) }),
  route('/organizers', { GET: org.list, POST: org.create }),
  route('/organizers/:id', { GET: org.read, DELETE: org.remove, ...edit(org.update) }),
  route('/organizers/by-slug/:slug', { GET: org.readBySlug, DELETE: org.removeBySlug, ...edit(org.updateBySlug) }),
  route('/categories', { GET: cat.list, POST: cat.create }),
  route('/categories/:id', { GET: cat.read, DELETE: cat.remove, ...edit(cat.update) }),
  route('/tags', { GET: tag.list, POST: tag.create }),
  route('/tags/:id', { GET: tag.read, DELETE: tag.remove, ...edit(tag.update) }),
];

export function matchRoute(sub: string): { route: Route; path: Record<string, string> } | undefined {
  for (const r of ROUTES) {
    const m = r.re.exec(sub);
    if (m) {
      const path: Record<string, string> = {};
      for (const [k, v] of Object.entries(m.groups ?? {})) path[k] = safeDecode(v);
      return { route: r, path };
    }
  }
  return undefined;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** What the `Allow` header lists: everything for a signed-in caller, the public methods otherwise. */
export function allowed(r: Route, authed: boolean): string {
  return METHODS.filter((m) => r.methods[m] && (authed || !r.methods[m]!.auth)).join(', ');
}

/**
 * WordPress's dispatch order: route and method (else 404 rest_no_route) → required arguments
 * (400, `params` an array) → argument validation (400, `params` an object) → permission (401)
 * → handler. So an anonymous write with a bad argument gets 400, not 401.
 */
export function dispatch(r: Route, method: Method, ctx: Ctx): Reply {
  const endpoint = r.methods[method];
  if (!endpoint) throw noRoute();
  const missing = (endpoint.required ?? []).filter((n) => !has(ctx, n));
  if (missing.length) throw missingParams(missing);
  const lang = ctx.params.ml_language;
  if (lang !== undefined && !(LANGUAGES as readonly unknown[]).includes(lang)) throw invalidParams(['ml_language']);
  const invalid = endpoint.validate?.(ctx);
  if (invalid) throw invalid;
  if (endpoint.auth && !ctx.authed) throw forbidden();
  return endpoint.handle(ctx);
}
