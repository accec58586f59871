import type { z } from 'zod';
import type { CallOptions, Page } from '../connection.ts';
import type { Executor } from '../executor.ts';
import { DEFAULT_ITERATE_PER_PAGE, fetchPage, iteratePages, type IterateOptions, type ListSpec } from '../paging.ts';
import { toQuery } from '../query.ts';
import { TermListQuery } from '../schemas/lists.ts';
import type { TermRecord } from '../schemas/terms.ts';
import { idSegment, parsed, validate } from '../validate.ts';
import { nameKey } from '../../util/entities.ts';

export interface TermsConfig<R, C, U> {
  name: 'categories' | 'tags';
  record: z.ZodType<R>;
  create: z.ZodType<C>;
  update: z.ZodType<U>;
}


/**
 * `/categories` and `/tags`: addressable by id only. Lists hide empty terms unless
 * `hide_empty: false` is sent (the site default is true); a page past the end is 200 `[]`.
 * Deletes are permanent.
 */
export class TermsResource<R extends TermRecord, C extends { name: string; slug?: string }, U extends object> {
  readonly #exec: Executor;
  readonly #cfg: TermsConfig<R, C, U>;
  readonly #base: string;

  constructor(exec: Executor, cfg: TermsConfig<R, C, U>) {
    this.#exec = exec;
    this.#cfg = cfg;
    this.#base = `/${cfg.name}`;
  }

  #listSpec(query: TermListQuery): { spec: ListSpec<R>; page?: number; perPage?: number } {
    const { page, per_page, ...filters } = validate(TermListQuery, query ?? {}, 'GET', this.#base, 'query');
    return { spec: { route: this.#base, path: this.#base, key: this.#cfg.name, item: this.#cfg.record, query: toQuery(filters) }, page, perPage: per_page };
  }

  async list(query: TermListQuery = {}, opts?: CallOptions): Promise<Page<R>> {
    const { spec, page, perPage } = this.#listSpec(query);
    return (await fetchPage(this.#exec, spec, page ?? 1, perPage ?? DEFAULT_ITERATE_PER_PAGE, opts ?? {}, false))!;
  }

  iterate(query: TermListQuery = {}, opts: IterateOptions = {}): AsyncIterable<R> {
    const { spec, page, perPage } = this.#listSpec(query);
    return iteratePages(this.#exec, spec, page ?? 1, perPage ?? DEFAULT_ITERATE_PER_PAGE, opts);
  }

  get(id: number, opts?: CallOptions): Promise<R> {
    const route = `${this.#base}/:id`;
    return this.#exec.call(
      { method: 'GET', route, path: `${this.#base}/${idSegment(id, 'GET', route)}`, kind: 'safe', notFoundParams: ['id'], parse: (j) => parsed(this.#cfg.record, j) },
      opts,
    );
  }

  /** The term with exactly this slug, empty terms included; null when there is none. */
  async findBySlug(slug: string, opts?: CallOptions): Promise<R | null> {
    const page = await this.list({ slug, hide_empty: false, per_page: DEFAULT_ITERATE_PER_PAGE }, opts);
    return page.items.find((t) => t.slug === slug) ?? null;
  }

  /** The term named exactly so (HTML entities decoded, case-insensitive); null when there is none. */
  async findByName(name: string, opts?: CallOptions): Promise<R | null> {
    const want = nameKey(name);
    for await (const t of this.iterate({ search: name, hide_empty: false }, opts)) {
      if (nameKey(t.name) === want) return t;
    }
    return null;
  }

  /**
   * Creates a term. A create whose outcome is unknown is looked up (by slug when one is sent,
   * else by name) before it is repeated. An existing name is ApiError 400 `term_exists` with
   * `data.term_id`.
   */
  create(body: C, opts?: CallOptions): Promise<R> {
    const valid = validate(this.#cfg.create, body, 'POST', this.#base, 'body');
    const { slug, name } = valid;
    return this.#exec.call(
      {
        method: 'POST',
        route: this.#base,
        path: this.#base,
        body: valid,
        kind: 'create',
        parse: (j) => parsed(this.#cfg.record, j),
        verify: (signal) => (slug ? this.findBySlug(slug, { lang: opts?.lang, signal }) : this.findByName(name, { lang: opts?.lang, signal })),
      },
      opts,
    );
  }

  update(id: number, body: U, opts?: CallOptions): Promise<R> {
    const route = `${this.#base}/:id`;
    const valid = validate(this.#cfg.update, body, 'POST', route, 'body');
    return this.#exec.call(
      { method: 'POST', route, path: `${this.#base}/${idSegment(id, 'POST', route)}`, body: valid, kind: 'safe', notFoundParams: ['id'], parse: (j) => parsed(this.#cfg.record, j) },
      opts,
    );
  }

  /** Deletes for good (no trash for terms); afterwards the id is NotFoundError. */
  delete(id: number, opts?: CallOptions): Promise<R> {
    const route = `${this.#base}/:id`;
    return this.#exec.call(
      { method: 'DELETE', route, path: `${this.#base}/${idSegment(id, 'DELETE', route)}`, kind: 'safe', notFoundParams: ['id'], parse: (j) => parsed(this.#cfg.record, j) },
      opts,
    );
  }
}

