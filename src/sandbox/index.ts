import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { generatePassword } from './auth.ts';
import type { SiteConfig, SiteVersion } from './context.ts';
import { FaultPlan, FaultSettings } from './faults.ts';
import { Persistence } from './persistence.ts';
import { renderEvent, renderOrganizer, renderTerm, renderVenue, type RenderCtx } from './shapes.ts';
import { createHandler } from './server.ts';
import { StatsRecorder, type SandboxStats } from './stats.ts';
import { Store } from './store.ts';

export type { SandboxStats } from './stats.ts';

/** The namespace real sites use; always served too, as an alias of the same data. */
const TRIBE_NAMESPACE = 'tribe/events/v1';

export interface SandboxOptions {
  /** default 8787; 0 = a free port */
  port?: number;
  /** default 127.0.0.1 */
  host?: string;
  /** persist records here (JSON, written atomically ~100 ms after changes and on close); loaded at start */
  dataFile?: string;
  /** Basic auth credentials; default CALSYNC_USER/CALSYNC_PASSWORD, else `admin` + a generated password */
  user?: string;
  password?: string;
  /** a bearer token also accepted */
  token?: string;
  /** default 'calendar/events/v1'; 'tribe/events/v1' is always served as well */
  namespace?: string;
  /** default 6.17.2; 6.17.1 answers unknown ids and by-slug update misses the older way */
  version?: SiteVersion;
  /** default 'UTC' */
  siteTimezone?: string;
  /** default 10, the live sites' setting */
  defaultPerPage?: number;
  /** clock for default windows, post dates and modified times */
  now?: () => Date;
  latencyMs?: number;
  latencyJitterMs?: number;
  /** 0..1 share of REST requests answered 500/502/503 */
  errorRate?: number;
  /** 0..1 share answered 429 with Retry-After */
  throttleRate?: number;
  /** default 1 */
  retryAfterSeconds?: number;
  /** 0..1 share whose socket is destroyed without a response */
  dropRate?: number;
  /** seed of the fault generator (default 1): same seed and request order, same faults */
  seed?: number;
}

export type FaultOptions = Partial<Pick<SandboxOptions, 'latencyMs' | 'latencyJitterMs' | 'errorRate' | 'throttleRate' | 'retryAfterSeconds' | 'dropRate'>>;

export interface SandboxDump {
  events: unknown[];
  venues: unknown[];
  organizers: unknown[];
  categories: unknown[];
  tags: unknown[];
}

export interface Sandbox {
  /** REST root, e.g. http://127.0.0.1:PORT/wp-json (routes at `${url}/${namespace}/events`) */
  url: string;
  origin: string;
  port: number;
  namespace: string;
  user: string;
  password: string;
  stats(): SandboxStats;
  /** arrival times (ms, performance.now()) of the REST requests counted in stats(), oldest first */
  arrivals(): number[];
  /** the most REST requests that arrived within any window of `windowMs` (default one second) */
  peakRate(windowMs?: number): number;
  resetStats(): void;
  setFaults(f: FaultOptions): void;
  /** every record of a language (default 'en'; '*' = all), drafts and trash included, in response shape */
  dump(lang?: string): SandboxDump;
  close(): Promise<void>;
}

function buildDump(store: Store, rcFor: (lang: string) => RenderCtx, lang: string): SandboxDump {
  const pick = <T extends { lang: string; id: number }>(m: Map<number, T>): T[] =>
    [...m.values()].filter((r) => lang === '*' || r.lang === lang).sort((a, b) => a.id - b.id);
  return {
    events: pick(store.events).map((r) => renderEvent(store, r, rcFor(r.lang))),
    venues: pick(store.venues).map((r) => renderVenue(store, r, rcFor(r.lang))),
    organizers: pick(store.organizers).map((r) => renderOrganizer(store, r, rcFor(r.lang))),
    categories: pick(store.terms).filter((t) => t.taxonomy === 'tribe_events_cat').map((t) => renderTerm(store, t, rcFor(t.lang))),
    tags: pick(store.terms).filter((t) => t.taxonomy === 'post_tag').map((t) => renderTerm(store, t, rcFor(t.lang))),
  };
}

function siteConfigOf(opts: SandboxOptions, namespace: string): SiteConfig {
  return {
    version: opts.version ?? '6.17.2',
    siteTimezone: opts.siteTimezone ?? 'UTC',
    defaultPerPage: opts.defaultPerPage ?? 10,
    now: opts.now ?? (() => new Date()),
    namespaces: [...new Set([namespace, TRIBE_NAMESPACE])],
  };
}

/** The site's records, loaded from and saved to `dataFile` when there is one. */
function openStore(dataFile: string | undefined): { store: Store; persistence?: Persistence } {
  const store = new Store();
  const persistence = dataFile ? new Persistence(dataFile, store) : undefined;
  persistence?.load();
  if (persistence) store.onWrite = () => persistence.changed();
  return { store, persistence };
}

function faultPlanOf(opts: SandboxOptions): FaultPlan {
  return new FaultPlan(FaultSettings.parse({
    latencyMs: opts.latencyMs, latencyJitterMs: opts.latencyJitterMs, errorRate: opts.errorRate,
    throttleRate: opts.throttleRate, retryAfterSeconds: opts.retryAfterSeconds, dropRate: opts.dropRate,
  }), opts.seed ?? 1);
}

/** Open sockets, so close() can end kept-alive connections instead of waiting for them. */
function trackSockets(server: Server): Set<Socket> {
  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return sockets;
}

async function listen(server: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

/** Starts a local calendar site. Logs nothing; see describeSandbox() for a printable summary. */
export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const namespace = opts.namespace ?? 'calendar/events/v1';
  const user = opts.user ?? process.env.CALSYNC_USER ?? 'admin';
  const password = opts.password ?? process.env.CALSYNC_PASSWORD ?? generatePassword();
  const site = siteConfigOf(opts, namespace);
  const { store, persistence } = openStore(opts.dataFile);
  const stats = new StatsRecorder();
  const faults = faultPlanOf(opts);

  const host = opts.host ?? '127.0.0.1';
  let origin = '';
  const rcFor = (lang: string): RenderCtx => ({
    origin, host, restRoot: `${origin}/wp-json`, namespace, lang,
  });
  const dump = (lang = 'en'): SandboxDump => buildDump(store, rcFor, lang);

  const server: Server = createServer(
    { keepAliveTimeout: 5_000 },
    createHandler({ store, site, stats, faults, creds: { user, password, token: opts.token }, dump }),
  );
  const sockets = trackSockets(server);
  const port = await listen(server, opts.port ?? 8787, host);
  origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  let closing: Promise<void> | undefined;
  return {
    url: `${origin}/wp-json`,
    origin,
    port,
    namespace,
    user,
    password,
    stats: () => stats.snapshot(),
    arrivals: () => stats.arrivals(),
    peakRate: (windowMs) => stats.peakRate(windowMs),
    resetStats: () => stats.reset(),
    setFaults: (f) => faults.update(FaultSettings.parse(f)),
    dump,
    close: () => {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          for (const s of sockets) s.destroy();
        });
        await persistence?.flush();
      })();
      return closing;
    },
  };
}

/** A printable summary for the CLI: where the site is and how to sign in. */
export function describeSandbox(s: Sandbox): string {
  return [
    `calsync sandbox site at ${s.origin}`,
    `  REST root:  ${s.url}`,
    `  events:     ${s.url}/${s.namespace}/events   (also ${s.url}/${TRIBE_NAMESPACE}/events)`,
    `  user:       ${s.user}`,
    `  password:   ${s.password}`,
    `  stats:      ${s.origin}/__sandbox/stats`,
  ].join('\n');
}
