import { inject } from 'vitest';
import { resetKitSite, type RealSite } from './kit.ts';

export type { RealSite } from './kit.ts';

/** Site A (TEC 6.17.2, the sync source) and site B (6.17.1, the target). */
export function realSites(): { a: RealSite; b: RealSite } {
  return inject('realSites');
}

export type Json = Record<string, any>;

/** A bare REST client for checking what a site holds, independent of calsync's own client. */
export class SiteApi {
  readonly site: RealSite;
  constructor(site: RealSite) {
    this.site = site;
  }

  get base(): string {
    return `${this.site.url.replace(/\/$/, '')}/${this.site.namespace}`;
  }

  async request(method: string, route: string, body?: unknown): Promise<{ status: number; json: Json }> {
    const auth = 'Basic ' + Buffer.from(`${this.site.user}:${this.site.password}`).toString('base64');
    const res = await fetch(this.base + route, {
      method,
      headers: { Authorization: auth, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    let json: Json;
    try {
      json = JSON.parse(text) as Json;
    } catch {
      json = { raw: text.slice(0, 500) };
    }
    return { status: res.status, json };
  }

  async ok(method: string, route: string, body?: unknown): Promise<Json> {
    const r = await this.request(method, route, body);
    if (r.status >= 300) throw new Error(`${method} ${this.base}${route} → ${r.status} ${JSON.stringify(r.json).slice(0, 400)}`);
    return r.json;
  }

  /** Every record of a list route (events need a window: real TEC lists from today by default). */
  async all(kind: 'events' | 'venues' | 'organizers' | 'categories' | 'tags', query: Record<string, string> = {}): Promise<Json[]> {
    const out: Json[] = [];
    for (let page = 1; ; page++) {
      const q = new URLSearchParams({ per_page: '50', page: String(page), ...query });
      const r = await this.request('GET', `/${kind}?${q}`);
      // TEC answers 400 rest_invalid_param for a page past the end, and 404 when the list is empty.
      if (r.status === 400 || r.status === 404) break;
      if (r.status !== 200) throw new Error(`GET /${kind} → ${r.status} ${JSON.stringify(r.json).slice(0, 300)}`);
      const rows = (r.json[kind] ?? []) as Json[];
      out.push(...rows);
      if (rows.length < 50 || page >= Number(r.json.total_pages ?? 1)) break;
    }
    return out;
  }

  events(from = '2029-01-01', to = '2032-12-31', extra: Record<string, string> = {}): Promise<Json[]> {
    return this.all('events', { start_date: `${from} 00:00:00`, end_date: `${to} 23:59:59`, ...extra });
  }

  /**
   * Empties the site. Kit sites restore their post-install snapshot; a staging site given by URL
   * has its events, venues, organizers and terms deleted one by one (that is why it must be a
   * site kept for tests).
   */
  async reset(): Promise<void> {
    if (this.site.kit) return resetKitSite(this.site.kit);
    for (const e of await this.events('1971-01-01', '2099-12-31', { status: 'any' }).catch(() => this.events('1971-01-01', '2099-12-31'))) await this.ok('DELETE', `/events/${e.id}?force=true`);
    for (const kind of ['venues', 'organizers'] as const) for (const r of await this.all(kind)) await this.ok('DELETE', `/${kind}/${r.id}?force=true`);
    for (const kind of ['categories', 'tags'] as const) for (const r of await this.all(kind, { hide_empty: 'false' })) await this.ok('DELETE', `/${kind}/${r.id}`);
  }
}

/** Instants as the site states them in UTC (`utc_start_date`, "YYYY-MM-DD HH:MM:SS"). */
export function siteUtc(s: string): number {
  return Date.parse(s.replace(' ', 'T') + 'Z');
}

/** UTC, Etc/UTC, Z and UTC+0 are the same zone. */
export function sameZone(z: string): string {
  return /^(?:Etc\/)?(?:UTC|GMT|Z|UTC\+0|UTC\+00:00)$/i.test(z) ? 'UTC' : z;
}
