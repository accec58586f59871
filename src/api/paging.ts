import { z } from 'zod';
import type { CallOptions, Page } from './connection.ts';
import { ResponseFormatError, type ApiError } from './errors/index.ts';
import type { Executor } from './executor.ts';
import { ListEnvelope, MAX_PER_PAGE, type ListKey } from './schemas/lists.ts';
import type { RawResponse } from './transport.ts';
import { compiled } from '../util/compiled.ts';
import { parsed } from './validate.ts';

/**
 * Paged lists. Page URLs are built here from the caller's query (never from `next_rest_url`,
 * which drops filters and carries `status=any`). The end of a list is `total_pages`, an empty
 * page (terms past the end answer 200 `[]`) or a 404 `*-archive-page-not-found` (events, venues,
 * organizers past the end).
 */

export interface ListSpec<T> {
  /** Route template and path, e.g. `/events`. */
  route: string;
  path: string;
  /** Envelope key holding the items. */
  key: ListKey;
  item: z.ZodType<T>;
  /** Filters, without `page`/`per_page`. */
  query: Array<[string, string]>;
}

export interface IterateOptions extends CallOptions {
  /** Pages fetched at once after the first (default 4). */
  concurrency?: number;
}

export const DEFAULT_ITERATE_PER_PAGE = MAX_PER_PAGE;
const DEFAULT_CONCURRENCY = 4;
const Items = z.array(z.unknown());

/** A header's whole-number value (`X-WP-TotalPages`, `X-TEC-Total`…); undefined when absent or not a number. */
export function header(res: RawResponse, name: string): number | undefined {
  const raw = res.headers[name];
  const v = Array.isArray(raw) ? raw[0] : raw;
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
}

function parsePage<T>(spec: ListSpec<T>, page: number, json: unknown, res: RawResponse): Page<T> {
  const env = parsed(ListEnvelope, json);
  const raw = parsed(Items, (json as Record<string, unknown>)[spec.key]);
  const item = compiled(spec.item);
  const items = raw.map((entry, i) => {
    const r = item.safeParse(entry);
    if (!r.success) {
      const issue = r.error.issues[0];
      throw new Error(`${spec.key}[${i}]${issue?.path.length ? `.${issue.path.join('.')}` : ''}: ${issue?.message ?? 'invalid'}`);
    }
    return r.data;
  });
  // Body totals first; the X-TEC-* headers are the fallback (a proxy may strip either).
  const total = env.total ?? header(res, 'x-tec-total') ?? items.length;
  const totalPages = env.total_pages ?? header(res, 'x-tec-totalpages') ?? (items.length ? page : 0);
  return { items, total, totalPages, page };
}

function isPastEnd(err: ApiError): boolean {
  return err.status === 404 && err.code.endsWith('archive-page-not-found');
}

/** One page. `null` when the page is past the end (the 404 form), when `tolerateEnd` is set. */
export function fetchPage<T>(
  exec: Executor,
  spec: ListSpec<T>,
  page: number,
  perPage: number,
  opts: CallOptions,
  tolerateEnd: boolean,
): Promise<Page<T> | null> {
  const query: Array<[string, string]> = [...spec.query, ['page', String(page)], ['per_page', String(perPage)]];
  return exec.call<Page<T> | null>(
    {
      method: 'GET',
      route: spec.route,
      path: spec.path,
      query,
      kind: 'safe',
      parse: (json, res) => parsePage(spec, page, json, res),
      recover: tolerateEnd ? (err) => (isPastEnd(err) ? null : undefined) : undefined,
    },
    opts,
  );
}

/**
 * Every item from `startPage` on: the first page alone (it tells `total_pages`), then the rest
 * with at most `concurrency` pages in flight, yielded in page order. Stopping early (break)
 * aborts the pages still in flight.
 */
export async function* iteratePages<T>(
  exec: Executor,
  spec: ListSpec<T>,
  startPage: number,
  perPage: number,
  opts: IterateOptions,
): AsyncGenerator<T, void, undefined> {
  const concurrency = Math.max(1, Math.floor(opts.concurrency ?? DEFAULT_CONCURRENCY));
  const stop = new AbortController();
  const signal = opts.signal ? AbortSignal.any([opts.signal, stop.signal]) : stop.signal;
  const callOpts: CallOptions = { lang: opts.lang, signal };
  try {
    const first = await fetchPage(exec, spec, startPage, perPage, callOpts, true);
    if (!first || first.items.length === 0) return;
    const repeats = new RepeatCheck(spec);
    repeats.check(first);
    yield* first.items;
    const last = first.totalPages;
    let next = startPage + 1;
    const inflight: Array<Promise<Page<T> | null>> = [];
    while (next <= last || inflight.length > 0) {
      while (inflight.length < concurrency && next <= last) {
        const p = fetchPage(exec, spec, next++, perPage, callOpts, true);
        // Pages abandoned after an early stop must not surface as unhandled rejections.
        p.catch(() => undefined);
        inflight.push(p);
      }
      const page = await inflight.shift()!;
      if (!page || page.items.length === 0) return;
      repeats.check(page);
      yield* page.items;
    }
  } finally {
    stop.abort();
  }
}

/**
 * The end of a list is the site's word (`total_pages`, an empty page, a 404), so a site or a cache
 * in front of it that answers every page with the same records (a cache keyed without the query
 * string; a site claiming `total_pages: 1000000000`) would be read page after page without end, and
 * a sync or export would silently see one page's records as the whole window. Two pages in a row
 * holding only records already read in this listing end it with a ResponseFormatError instead.
 * Records that move between pages while the list is read (created or deleted meanwhile) repeat a
 * few at a time; a whole page twice over would take two pages' worth of new records mid-listing.
 */
class RepeatCheck<T> {
  readonly #spec: ListSpec<T>;
  readonly #ids = new Set<unknown>();
  #usable = true;
  /** Pages in a row without a record not read before. */
  #stale = 0;

  constructor(spec: ListSpec<T>) {
    this.#spec = spec;
  }

  check(page: Page<T>): void {
    if (!this.#usable) return;
    let fresh = false;
    for (const item of page.items) {
      const id = (item as { id?: unknown }).id;
      // Every list calsync pages holds records with numeric ids; one without keeps the check off.
      if (typeof id !== 'number') {
        this.#usable = false;
        return;
      }
      if (!this.#ids.has(id)) {
        this.#ids.add(id);
        fresh = true;
      }
    }
    this.#stale = fresh ? 0 : this.#stale + 1;
    if (this.#stale < 2) return;
    throw new ResponseFormatError({
      method: 'GET',
      route: this.#spec.route,
      url: `${this.#spec.path}?page=${page.page}`,
      status: 200,
      problem: `pages ${page.page - 1} and ${page.page} hold only records of earlier pages; the site (or a cache in front of it that ignores the query string) does not page this list`,
      excerpt: '',
    });
  }
}
