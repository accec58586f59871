import type { CircuitBreaker } from './breaker.ts';
import { resolveConnection, type CallOptions, type SiteConnection } from './connection.ts';
import { Executor, type ClientStats } from './executor.ts';
import { toQuery } from './query.ts';
import { header } from './paging.ts';
import { EventsResource } from './resources/events.ts';
import { EventAck } from './schemas/events.ts';
import { OrganizersResource } from './resources/organizers.ts';
import { TermsResource } from './resources/terms.ts';
import { VenuesResource } from './resources/venues.ts';
import {
  CategoryCreate,
  CategoryRecord,
  CategoryUpdate,
  TagCreate,
  TagRecord,
  TagUpdate,
} from './schemas/terms.ts';
import { Transport } from './transport.ts';

export interface RawRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: object;
  body?: unknown;
  /** Route template for errors and metrics; defaults to `path`. */
  route?: string;
  /** A POST that is an update (safe to repeat). */
  idempotent?: boolean;
}

/**
 * A typed client for one site's calendar REST interface: one keep-alive pool, one retry policy,
 * one set of counters. Create one per site (and language, if that is simpler) and `close()` it.
 */
export class CalendarClient {
  readonly events: EventsResource;
  /**
   * The same routes, with answers parsed for only what the write path reads (EventAck): for the
   * creates and updates of imports and syncs, where the full record's validation was a tenth of the
   * CPU per event (bench/import-ics.ts). Creates also ask the site for only those keys (`_fields`,
   * see SluggedConfig.answerFields): the whole record's JSON was most of what a create answered.
   */
  readonly eventWrites: EventsResource<EventAck>;
  readonly venues: VenuesResource;
  readonly organizers: OrganizersResource;
  readonly categories: TermsResource<CategoryRecord, CategoryCreate, CategoryUpdate>;
  readonly tags: TermsResource<TagRecord, TagCreate, TagUpdate>;
  readonly #transport: Transport;
  readonly #exec: Executor;

  constructor(conn: SiteConnection) {
    const resolved = resolveConnection(conn);
    this.#transport = new Transport(resolved);
    this.#exec = new Executor(resolved, this.#transport);
    this.events = new EventsResource(this.#exec);
    this.eventWrites = new EventsResource(this.#exec, EventAck, Object.keys(EventAck.shape));
    this.venues = new VenuesResource(this.#exec);
    this.organizers = new OrganizersResource(this.#exec);
    this.categories = new TermsResource(this.#exec, { name: 'categories', record: CategoryRecord, create: CategoryCreate, update: CategoryUpdate });
    this.tags = new TermsResource(this.#exec, { name: 'tags', record: TagRecord, create: TagCreate, update: TagUpdate });
  }

  /** The namespace index (WordPress): its routes and their arguments. */
  root(params: { namespace?: string; context?: 'view' | 'help' } = {}, opts?: CallOptions): Promise<unknown> {
    return this.#exec.call({ method: 'GET', route: '/', path: '', query: toQuery(params), kind: 'safe', parse: (j) => j }, opts);
  }

  /** The OpenAPI 3 document the site serves at `/doc` (descriptive, not exact: the live routes accept and return more than it says). */
  doc(opts?: CallOptions): Promise<unknown> {
    return this.#exec.call({ method: 'GET', route: '/doc', path: '/doc', kind: 'safe', parse: (j) => j }, opts);
  }

  /**
   * Any route of the namespace, for what the typed resources do not cover. `path` is relative to
   * the namespace and already encoded (`/events/12`). Same retries, deadline and errors as the
   * typed calls; a POST counts as a create (never repeated once it may have landed) unless
   * `idempotent` says it is an update. Bodies are sent as given, unchecked.
   */
  request<T = unknown>(req: RawRequest, opts?: CallOptions): Promise<T> {
    const kind = req.method === 'POST' && !req.idempotent ? 'create' : 'safe';
    return this.#exec.call<T>(
      { method: req.method, route: req.route ?? req.path, path: req.path, query: toQuery(req.query), body: req.body, kind, parse: (j) => j as T },
      opts,
    );
  }

  /**
   * A GET of a WordPress core list (`wp/v2`): its body, and the number of pages its X-WP-TotalPages
   * header gives (undefined when a proxy stripped it), so the other pages can be read side by side.
   */
  requestPage<T = unknown>(req: Omit<RawRequest, 'method' | 'body'>, opts?: CallOptions): Promise<{ body: T; totalPages?: number }> {
    return this.#exec.call(
      { method: 'GET', route: req.route ?? req.path, path: req.path, query: toQuery(req.query), kind: 'safe', parse: (j, res) => ({ body: j as T, totalPages: header(res, 'x-wp-totalpages') }) },
      opts,
    );
  }

  /** Attempts sent, retries made and 429s received since the client was created. */
  stats(): ClientStats {
    return this.#exec.stats();
  }

  /** The run's circuit breaker for this site: `error` is set once the site was taken as down. */
  get breaker(): CircuitBreaker {
    return this.#exec.breaker;
  }

  /** Closes the connection pool once in-flight requests finish. */
  close(): Promise<void> {
    return this.#transport.close();
  }
}
