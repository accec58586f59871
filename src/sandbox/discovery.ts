import { readFileSync } from 'node:fs';
import type { Ctx, Endpoint, Reply } from './context.ts';
import { offsetAt } from '../model/timezones.ts';
import { ApiError } from './errors.ts';

/** The OpenAPI 3.0.0 document a real 6.17.2 site serves at /doc (servers rewritten per request). */
const OPENAPI = JSON.parse(readFileSync(new URL('./openapi-tec-6.17.2.json', import.meta.url), 'utf8')) as Record<string, unknown>;

export const docEndpoint: Endpoint = {
  auth: false,
  args: {},
  handle: (ctx) => ({ status: 200, body: { ...OPENAPI, servers: [{ url: `${ctx.rc.restRoot}/${ctx.rc.namespace}/` }] } }),
};

interface IndexedRoute {
  wpPattern: string;
  methods: Partial<Record<string, Endpoint>>;
}

/** One namespace's routes as WordPress's namespace index lists them. */
function describeRoutes(routes: IndexedRoute[], ctx: Ctx, namespace: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const r of routes) {
    const key = `/${namespace}${r.wpPattern}`;
    // Methods sharing one handler (POST/PUT/PATCH updates) are one endpoint entry.
    const groups = new Map<Endpoint, string[]>();
    for (const [m, e] of Object.entries(r.methods)) if (e) groups.set(e, [...(groups.get(e) ?? []), m]);
    const endpoints = [...groups].map(([e, methods]) => ({
      methods,
      args: Object.fromEntries(Object.entries(e.args).map(([name, spec]) => [name, { required: spec.required ?? false, ...spec }])),
    }));
    const entry: Record<string, unknown> = { namespace, methods: endpoints.flatMap((e) => e.methods), endpoints };
    if (!r.wpPattern.includes('(?P<')) entry._links = { self: [{ href: `${ctx.rc.restRoot}${key}` }] };
    out[key] = entry;
  }
  return out;
}

/**
 * GET on the namespace root: `{namespace, routes, _links}`; `namespace=` picks another served
 * namespace, an unknown one is 404 rest_invalid_namespace; `context` is ignored.
 */
export function namespaceIndex(routes: IndexedRoute[], ctx: Ctx): Reply {
  const wanted = typeof ctx.query.namespace === 'string' ? ctx.query.namespace : ctx.rc.namespace;
  if (!ctx.site.namespaces.includes(wanted)) {
    throw new ApiError(404, 'rest_invalid_namespace', 'The specified namespace could not be found.');
  }
  return {
    status: 200,
    body: { namespace: wanted, routes: describeRoutes(routes, ctx, wanted), _links: { up: [{ href: `${ctx.rc.restRoot}/` }] } },
  };
}

/** GET /wp-json/: the site index, enough for a client to discover namespaces and auth. */
export function siteIndex(restRoot: string, origin: string, namespaces: string[], timezone: string): Record<string, unknown> {
  return {
    name: 'calsync sandbox',
    description: 'A local calendar site',
    url: origin,
    home: origin,
    ...zoneFields(timezone),
    namespaces: [...namespaces, 'wp/v2'],
    authentication: {
      'application-passwords': { endpoints: { authorization: `${origin}/wp-admin/authorize-application.php` } },
    },
    routes: {},
    _links: { help: [{ href: 'https://developer.wordpress.org/rest-api/' }], self: [{ href: `${restRoot}/` }] },
  };
}

/**
 * The site's zone as WordPress's index publishes it: an IANA zone as `timezone_string` with
 * `gmt_offset` its offset now in hours (a number); UTC or a manual offset (`UTC+5.5`) as an empty
 * `timezone_string` and `gmt_offset` the stored option, a string (`"0"`, `"5.5"`).
 */
export function zoneFields(timezone: string, now = Date.now()): { timezone_string: string; gmt_offset: string | number } {
  if (timezone === 'UTC') return { timezone_string: '', gmt_offset: '0' };
  const manual = /^UTC([+-]\d+(?:\.\d+)?)$/.exec(timezone);
  if (manual) return { timezone_string: '', gmt_offset: String(Number(manual[1])) };
  return { timezone_string: timezone, gmt_offset: Math.round((offsetAt(timezone, Math.floor(now / 1000)) / 3600) * 100) / 100 };
}
