import type { z } from 'zod';
import type { CallOptions, Page } from '../connection.ts';
import { NotFoundError, goneAs, RequestValidationError, SlugMismatchError } from '../errors/index.ts';
import type { Executor } from '../executor.ts';
import { DEFAULT_ITERATE_PER_PAGE, fetchPage, iteratePages, type IterateOptions, type ListSpec } from '../paging.ts';
import { toQuery } from '../query.ts';
import { wpSlash } from '../wp-slash.ts';
import type { ListKey } from '../schemas/lists.ts';
import { idSegment, parsed, slugSegment, validate } from '../validate.ts';

/**
 * Events, venues and organizers: posts addressable by id and by slug, with the same routes
 * (`/x`, `/x/<id>`, `/x/by-slug/<slug>`). Updates go out as POST, which every route accepts
 * like PUT/PATCH and which hosts that block verbs let through.
 */

export interface SluggedConfig<R, C, U, UI, Q> {
  /** Path segment and list key: `events`, `venues`, `organizers`. */
  name: Extract<ListKey, 'events' | 'venues' | 'organizers'>;
  record: z.ZodType<R>;
  create: z.ZodType<C>;
  /** Body of by-slug updates (and of by-id updates unless `updateById` is given). */
  update: z.ZodType<U>;
  updateById: z.ZodType<UI>;
  listQuery: z.ZodType<Q>;
  /**
   * Venue and organizer by-slug updates require `slug` in the body too (src/sandbox/linked.ts);
   * the event route takes it from the path only.
   */
  slugInUpdateBody: boolean;
  /**
   * The keys of a record answer the caller reads (`record` parses no others): sent as WordPress's
   * `_fields` on creates, so the site encodes and sends only those, not the whole event with its
   * venue, organizers, dates and images. On creates only: TEC 6.17.1 answers a by-slug update that
   * misses with a WP_Error object and 200, which core's `_fields` filter turns into a PHP fatal (500),
   * so the miss could no longer be told (test/contract/fields.test.ts).
   */
  answerFields?: readonly string[];
}

type WithSlug = { slug?: string };

/**
 * Options of a create. `verify` finds the record after a failure that may or may not have landed
 * when the body carries no slug to look it up by (venues and organizers, named by the site);
 * without either, such a failure is thrown, never repeated.
 */
export type CreateOptions<R> = CallOptions & { verify?: (signal: AbortSignal) => Promise<R | null> };
type PageQuery = { page?: number; per_page?: number };

/** Options of single-record reads and deletes; events add the event `password`. */
export type RecordOptions<X> = CallOptions & X;

export class SluggedResource<R extends { id: number; slug?: string; status?: string }, C extends object, U extends object, UI extends object, Q extends PageQuery, X extends object = object> {
  protected readonly exec: Executor;
  protected readonly cfg: SluggedConfig<R, C, U, UI, Q>;
  protected readonly base: string;

  readonly #fields: Array<[string, string]>;

  constructor(exec: Executor, cfg: SluggedConfig<R, C, U, UI, Q>) {
    this.exec = exec;
    this.cfg = cfg;
    this.base = `/${cfg.name}`;
    this.#fields = cfg.answerFields?.length ? [['_fields', cfg.answerFields.join(',')]] : [];
  }

  /** Extra query of by-id reads and deletes (the event password); none by default. */
  protected recordQuery(_opts: RecordOptions<X> | undefined): Array<[string, string]> {
    return [];
  }

  #listSpec(query: Q, method: string): { spec: ListSpec<R>; page?: number; perPage?: number } {
    const q = validate(this.cfg.listQuery, query ?? {}, method, this.base, 'query') as Q;
    const { page, per_page, ...filters } = q;
    return { spec: { route: this.base, path: this.base, key: this.cfg.name, item: this.cfg.record, query: toQuery(filters) }, page, perPage: per_page };
  }

  /** One page (default page 1, 50 per page). Past the last page the site answers 404 `*-archive-page-not-found` (thrown as ApiError). */
  async list(query: Q = {} as Q, opts?: CallOptions): Promise<Page<R>> {
    const { spec, page, perPage } = this.#listSpec(query, 'GET');
    return (await fetchPage(this.exec, spec, page ?? 1, perPage ?? DEFAULT_ITERATE_PER_PAGE, opts ?? {}, false))!;
  }

  /** Every record matching the query, page by page (50 per page unless `per_page` is set). */
  iterate(query: Q = {} as Q, opts: IterateOptions = {}): AsyncIterable<R> {
    const { spec, page, perPage } = this.#listSpec(query, 'GET');
    return iteratePages(this.exec, spec, page ?? 1, perPage ?? DEFAULT_ITERATE_PER_PAGE, opts);
  }

  get(id: number, opts?: RecordOptions<X>): Promise<R> {
    return this.#byId('GET', id, opts, { query: this.recordQuery(opts) });
  }

  getBySlug(slug: string, opts?: CallOptions): Promise<R> {
    return this.#bySlug('GET', slug, opts);
  }

  /** One record by id (`/x/<id>`): read, full-replace update or trash, answered with the record. */
  #byId(method: 'GET' | 'POST' | 'DELETE', id: number, opts: CallOptions | undefined, extra: { query?: Array<[string, string]>; body?: unknown }): Promise<R> {
    const route = `${this.base}/:id`;
    const body = extra.body === undefined ? {} : { body: wpSlash(extra.body) };
    return this.exec.call({ method, route, path: `${this.base}/${idSegment(id, method, route)}`, ...extra, ...body, kind: 'safe', notFoundParams: ['id'], parse: (j) => parsed(this.cfg.record, j) }, opts);
  }

  /** One record by slug (`/x/by-slug/<slug>`): read, full-replace update or trash, answered with the record. */
  #bySlug(method: 'GET' | 'POST' | 'DELETE', slug: string, opts: CallOptions | undefined, body?: unknown): Promise<R> {
    const route = `${this.base}/by-slug/:slug`;
    return this.exec.call(
      { method, route, path: `${this.base}/by-slug/${slugSegment(slug, method, route)}`, ...(body === undefined ? {} : { body: wpSlash(body) }), kind: 'safe', notFoundParams: ['slug'], parse: (j) => parsed(this.cfg.record, j) },
      opts,
    );
  }

  /** The record with this slug, or null when the site has none (any of its not-found answers). */
  async findBySlug(slug: string, opts?: CallOptions): Promise<R | null> {
    try {
      return await this.getBySlug(slug, opts);
    } catch (err) {
      if (err instanceof NotFoundError) return null;
      throw err;
    }
  }

  /**
   * Whether a record with this slug sits in the trash (WordPress renamed it `<slug>__trashed`).
   * A trashed item was deleted on the site on purpose and must not be re-created.
   * A trashed event reads as 403 on TEC 6.17.2 and as 200 with status `trash` on 6.17.1.
   */
  async isTrashed(slug: string, opts?: CallOptions): Promise<boolean> {
    try {
      const rec = await this.getBySlug(`${slug}__trashed`, opts);
      return rec.status === 'trash';
    } catch (err) {
      if (err instanceof NotFoundError) return false;
      if (goneAs(err) === 'trashed') return true;
      throw err;
    }
  }

  /**
   * Creates a record. With a `slug`, a create whose outcome is unknown (connection lost, 5xx) is
   * looked up by slug before being repeated, so it never lands twice, and the slug the site gave
   * is checked: a different one throws SlugMismatchError carrying the created record.
   */
  create(body: C, opts?: CreateOptions<R>): Promise<R> {
    return this.#create(validate(this.cfg.create, body, 'POST', this.base, 'body') as C & WithSlug, opts);
  }

  async #create(valid: C & WithSlug, opts: CreateOptions<R> | undefined): Promise<R> {
    const slug = valid.slug;
    const record = await this.exec.call<R>(
      {
        method: 'POST',
        route: this.base,
        path: this.base,
        query: this.#fields,
        body: wpSlash(valid),
        kind: 'create',
        parse: (j) => parsed(this.cfg.record, j),
        verify: slug ? (signal) => this.findBySlug(slug, { lang: opts?.lang, signal }) : opts?.verify,
      },
      { lang: opts?.lang, signal: opts?.signal },
    );
    if (slug !== undefined && record.slug !== slug) {
      throw new SlugMismatchError(this.cfg.name, slug, record.slug ?? '', record);
    }
    return record;
  }

  /** Full-replace update by id (the site resets omitted fields: send the complete body). */
  update(id: number, body: UI, opts?: CallOptions): Promise<R> {
    const route = `${this.base}/:id`;
    return this.#byId('POST', id, opts, { body: validate(this.cfg.updateById, body, 'POST', route, 'body') });
  }

  /** Full-replace update by slug; NotFoundError when the slug is unknown (all three forms). */
  updateBySlug(slug: string, body: U, opts?: CallOptions): Promise<R> {
    const route = `${this.base}/by-slug/:slug`;
    slugSegment(slug, 'POST', route);
    const withSlug = this.cfg.slugInUpdateBody ? { ...body, slug } : body;
    return this.#bySlug('POST', slug, opts, validate(this.cfg.update, withSlug, 'POST', route, 'body'));
  }

  /** Moves the record to the trash; a second delete by id is ApiError 410 `*-is-in-trash`. */
  delete(id: number, opts?: RecordOptions<X>): Promise<R> {
    return this.#byId('DELETE', id, opts, { query: this.recordQuery(opts) });
  }

  /** Trashes by slug; once trashed the slug is `<slug>__trashed`, so a second call is NotFoundError. */
  deleteBySlug(slug: string, opts?: CallOptions): Promise<R> {
    return this.#bySlug('DELETE', slug, opts);
  }

  /**
   * Update through the by-slug route with the full body; when the site has no such slug (any of
   * its three not-found answers) create it with that slug. The site has no create-by-slug.
   */
  async upsertBySlug(slug: string, body: C, opts?: CallOptions): Promise<{ record: R; created: boolean }> {
    const route = `${this.base}/by-slug/:slug`;
    const given = (body as WithSlug).slug;
    if (given !== undefined && given !== slug) {
      throw new RequestValidationError('POST', route, 'body', [{ path: ['slug'], message: `"${given}" differs from the slug being upserted ("${slug}")` }]);
    }
    slugSegment(slug, 'POST', route);
    // Validated once: a valid create body (slug included) is also a valid by-slug update body.
    const full = validate(this.cfg.create, { ...body, slug }, 'POST', route, 'body') as C & WithSlug;
    try {
      return { record: await this.#bySlug('POST', slug, opts, full), created: false };
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
    }
    return { record: await this.#create(full, opts), created: true };
  }
}
