import { formatWall, instantToWall } from './dates.ts';
import type { ApiError } from './errors.ts';
import type { Params } from './params.ts';
import type { RenderCtx } from './shapes.ts';
import type { Store } from './store.ts';

export type SiteVersion = '6.17.2' | '6.17.1';

/** Site-wide settings the handlers need. */
export interface SiteConfig {
  version: SiteVersion;
  /** 'UTC' or an IANA zone */
  siteTimezone: string;
  defaultPerPage: number;
  now: () => Date;
  /** the configured namespace and its alias, both serving the same data */
  namespaces: string[];
}

/** One REST request, after routing. */
export interface Ctx {
  method: string;
  /** path captures + body + query, merged as WordPress's get_param sees them */
  params: Params;
  query: Params;
  path: Record<string, string>;
  lang: string;
  authed: boolean;
  rc: RenderCtx;
  site: SiteConfig;
  store: Store;
}

export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** One method on one route. Checks run in WordPress's order: required → valid → permission → handler. */
export interface Endpoint {
  /** needs credentials (the permission callback) */
  auth: boolean;
  required?: string[];
  /** argument names (and whether required) for the namespace index */
  args: Record<string, { required?: boolean; type?: string; default?: unknown }>;
  /** parameter validation; runs BEFORE the permission check, like validate_callback */
  validate?: (ctx: Ctx) => ApiError | undefined;
  handle: (ctx: Ctx) => Reply;
}

export function has(ctx: Ctx, name: string): boolean {
  return ctx.params[name] !== undefined && ctx.params[name] !== null;
}

/** The timezone string the site stores for "site default": `UTC+0` when the site runs on UTC. */
export function siteTzString(site: SiteConfig): string {
  return site.siteTimezone === 'UTC' ? 'UTC+0' : site.siteTimezone;
}

/** Now, as the site's local wall clock (for default windows, relative dates, post dates). */
export function nowWall(site: SiteConfig): number {
  return instantToWall(site.now().getTime(), site.siteTimezone);
}

export function nowStamps(site: SiteConfig): { local: string; utc: string } {
  const t = site.now().getTime();
  return { local: formatWall(instantToWall(t, site.siteTimezone)), utc: formatWall(t) };
}
