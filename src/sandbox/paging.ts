import type { Ctx, Reply } from './context.ts';
import { archivePageNotFound } from './errors.ts';
import { toList, toPositiveInt } from './params.ts';
import { POST_STATUSES } from './records.ts';

/** Every list caps per_page here, silently (a larger value is clamped, not refused). */
export const MAX_PER_PAGE = 50;

/** Names of invalid `page`/`per_page` values (0, -1, abc are refused; 51+ is clamped). */
export function invalidPaging(ctx: Ctx): string[] {
  const bad: string[] = [];
  if (ctx.params.page !== undefined && toPositiveInt(ctx.params.page) === undefined) bad.push('page');
  if (ctx.params.per_page !== undefined && toPositiveInt(ctx.params.per_page) === undefined) bad.push('per_page');
  return bad;
}

export function paging(ctx: Ctx): { page: number; perPage: number } {
  const page = toPositiveInt(ctx.params.page) ?? 1;
  const perPage = Math.min(toPositiveInt(ctx.params.per_page) ?? ctx.site.defaultPerPage, MAX_PER_PAGE);
  return { page, perPage };
}

/**
 * The list envelope of /events, /venues and /organizers: `rest_url` repeats the normalized query
 * with raw spaces, `next_rest_url`/`previous_rest_url` are form-encoded and ABSENT when there is
 * no such page; totals also go out as X-TEC-Total / X-TEC-TotalPages. An empty page past the
 * first is a 404 `<kind>-archive-page-not-found`.
 */
export function archiveReply<T>(
  kind: 'event' | 'venue' | 'organizer',
  collectionUrl: string,
  query: [string, string][],
  all: readonly T[],
  page: number,
  perPage: number,
  render: (item: T) => unknown,
): Reply {
  const total = all.length;
  const totalPages = Math.ceil(total / perPage);
  const items = all.slice((page - 1) * perPage, page * perPage);
  if (page > 1 && items.length === 0) throw archivePageNotFound(kind);
  const withPage = (p: number | undefined): [string, string][] => {
    const rest = query.filter(([k]) => k !== 'page' && k !== 'per_page');
    return [...(p === undefined ? [] : [['page', String(p)] as [string, string]]), ['per_page', String(perPage)], ...rest];
  };
  const raw = withPage(page).map(([k, v]) => `${k}=${v}`).join('&');
  const encoded = (p: number | undefined): string => `${collectionUrl}/?${new URLSearchParams(withPage(p)).toString()}`;
  const body: Record<string, unknown> = { [`${kind}s`]: items.map(render), rest_url: `${collectionUrl}/?${raw}` };
  if (page < totalPages) body.next_rest_url = encoded(page + 1);
  // previous of page 2 is the URL without `page` at all
  if (page > 1) body.previous_rest_url = encoded(page === 2 ? undefined : page - 1);
  body.total = total;
  body.total_pages = totalPages;
  return { status: 200, body, headers: { 'X-TEC-Total': String(total), 'X-TEC-TotalPages': String(totalPages) } };
}

/**
 * The `status` list filter: anonymous callers may only ask for `publish` (the default); callers
 * with credentials see every status but trash by default (echoed as `status=any`, which they may
 * not send themselves) or name registered statuses.
 */
export function listStatuses(ctx: Ctx): { statuses: Set<string>; label: string } | undefined {
  const raw = ctx.params.status;
  if (raw === undefined || raw === null) {
    if (!ctx.authed) return { statuses: new Set(['publish']), label: 'publish' };
    return { statuses: new Set(POST_STATUSES.filter((s) => s !== 'trash' && s !== 'auto-draft')), label: 'any' };
  }
  const list = toList(raw).map(String);
  if (list.length === 0) return undefined;
  if (!ctx.authed) return list.every((s) => s === 'publish') ? { statuses: new Set(['publish']), label: 'publish' } : undefined;
  if (!list.every((s) => POST_STATUSES.includes(s))) return undefined;
  return { statuses: new Set(list), label: list.join(',') };
}
