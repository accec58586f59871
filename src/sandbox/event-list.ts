import { nowWall, type Ctx, type Reply } from './context.ts';
import { addYears, endOfDay, formatWall, instantToWall, isTimeValue, parseDateInput, startOfDay, wallOf } from './dates.ts';
import { ApiError, invalidParams } from './errors.ts';
import { findLinked } from './linked.ts';
import { organizerSpec } from './organizers.ts';
import { archiveReply, invalidPaging, listStatuses, paging } from './paging.ts';
import { isSet, toBool, toId, toList, toPositiveInt } from './params.ts';
import type { EventRecord } from './records.ts';
import type { Store } from './store.ts';
import { collectionUrl, renderEvent } from './shapes.ts';
import { filterTermIds } from './terms.ts';
import { venueSpec } from './venues.ts';

/**
 * GET /events. Dates compare as wall-clock strings: each event's own local dates, except on a
 * site whose zone is UTC itself, where its UTC dates count (TEC's event repository picks
 * `_EventStartDateUTC`/`_EventEndDateUTC` when the zone it normalizes to is named UTC). `start_date` = starts on/after,
 * `end_date` = ends on/before, `starts_*`/`ends_*` are strict inequalities; without
 * `strict_dates` the start_date snaps to 00:00:00 of its day and every other bound to 23:59:59.
 * The default window (yesterday 00:00:00 → now + 2 years, end of day) applies unless a
 * `starts_*`/`ends_*` bound is given; `include` ignores every date filter.
 */

const DATE_PARAMS = ['start_date', 'end_date', 'starts_before', 'starts_after', 'ends_before', 'ends_after'] as const;
const RELATIVE = ['starts_before', 'starts_after', 'ends_before', 'ends_after'] as const;

function idsExist(ctx: Ctx, v: unknown, kind: 'venue' | 'organizer'): boolean {
  const list = toList(v);
  const exists = (id: number | undefined): boolean => (kind === 'venue'
    ? findLinked(ctx.store, venueSpec, ctx.lang, id)
    : findLinked(ctx.store, organizerSpec, ctx.lang, id)) !== undefined;
  return list.length > 0 && list.every((x) => exists(toId(x)));
}

export function validateEventList(ctx: Ctx): ApiError | undefined {
  const p = ctx.params;
  const bad = invalidPaging(ctx);
  const details: Record<string, unknown> = {};
  const now = nowWall(ctx.site);
  for (const d of DATE_PARAMS) if (isSet(p[d]) && (!isTimeValue(p[d], now) || parseDateInput(p[d], now) === undefined)) bad.push(d);
  if (isSet(p.search) && typeof p.search !== 'string') bad.push('search');
  if (isSet(p.categories) && !filterTermIds(ctx.store, 'tribe_events_cat', ctx.lang, p.categories)) bad.push('categories');
  if (isSet(p.tags) && !filterTermIds(ctx.store, 'post_tag', ctx.lang, p.tags)) bad.push('tags');
  if (isSet(p.venue) && !idsExist(ctx, p.venue, 'venue')) bad.push('venue');
  if (isSet(p.organizer) && !idsExist(ctx, p.organizer, 'organizer')) bad.push('organizer');
  if (isSet(p.featured) && toBool(p.featured) === undefined) bad.push('featured');
  if (!listStatuses(ctx)) bad.push('status');
  if (isSet(p.include) && !toList(p.include).every((x) => toPositiveInt(x) !== undefined)) bad.push('include');
  if (isSet(p.post_parent)) {
    const parent = ctx.store.events.get(toId(p.post_parent) ?? -1);
    if (!parent || parent.lang !== ctx.lang) bad.push('post_parent');
  }
  if (isSet(p.ticketed)) {
    const t = toBool(p.ticketed);
    if (t === undefined) bad.push('ticketed');
    else if (t) {
      // Filtering on tickets needs the Event Tickets plugin, which the sandbox does not have.
      bad.push('ticketed');
      details.ticketed = { code: 'event-tickets-not-active', message: 'Event Tickets is not active', data: null };
    }
  }
  return bad.length ? invalidParams(bad, details) : undefined;
}

interface Bounds {
  startFrom?: string; // start >=
  startAfter?: string; // start >
  startBefore?: string; // start <
  endTo?: string; // end <=
  endAfter?: string; // end >
  endBefore?: string; // end <
}

function bounds(ctx: Ctx): { b: Bounds; echo: [string, string][] } {
  const p = ctx.params;
  const echo: [string, string][] = [];
  if (isSet(p.include)) return { b: {}, echo };
  const now = nowWall(ctx.site);
  const strict = toBool(p.strict_dates) === true;
  const value = (name: string): string | undefined => {
    if (!isSet(p[name])) return undefined;
    const wall = parseDateInput(p[name], now) as number;
    // strict values are read as UTC and moved to the site zone; otherwise whole days count
    const v = strict ? instantToWall(wall, ctx.site.siteTimezone) : name === 'start_date' ? startOfDay(wall) : endOfDay(wall);
    return formatWall(v);
  };
  const relative = RELATIVE.some((r) => isSet(p[r]));
  const b: Bounds = {
    startFrom: value('start_date') ?? (relative ? undefined : formatWall(startOfDay(now) - 86_400_000)),
    endTo: value('end_date') ?? (relative ? undefined : formatWall(endOfDay(addYears(now, 2)))),
    startBefore: value('starts_before'),
    startAfter: value('starts_after'),
    endBefore: value('ends_before'),
    endAfter: value('ends_after'),
  };
  const names: [keyof Bounds, string][] = [
    ['startFrom', 'start_date'], ['endTo', 'end_date'], ['startBefore', 'starts_before'], ['startAfter', 'starts_after'],
    ['endBefore', 'ends_before'], ['endAfter', 'ends_after'],
  ];
  for (const [k, n] of names) if (b[k] !== undefined) echo.push([n, b[k] as string]);
  if (strict) echo.push(['strict_dates', 'true']);
  return { b, echo };
}

/** No zone is further than this from UTC (UTC+14, UTC-12), with room to spare. */
const ZONE_SLACK_MS = 15 * 3_600_000;

/** Whether the listing compares UTC dates: the site's zone is UTC (see the note on listEvents' filters above). */
function usesUtcDates(ctx: Ctx): boolean {
  return ctx.site.siteTimezone === 'UTC';
}

/** First index whose start is >= (or > when `strictly`) the given value. */
function lowerBound(list: readonly EventRecord[], value: string, strictly: boolean): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const s = list[mid].start;
    if (s < value || (strictly && s === value)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// Walking 100k events page by page would rescan the whole range per page; the matching list is
// cached per query until the next write.
const caches = new WeakMap<Store, Map<string, { version: number; list: EventRecord[] }>>();
const CACHE_SIZE = 32;

function matching(ctx: Ctx, b: Bounds, statuses: Set<string>): EventRecord[] {
  const p = ctx.params;
  const search = typeof p.search === 'string' ? p.search.toLowerCase().split(/\s+/).filter(Boolean) : [];
  const cats = isSet(p.categories) ? new Set(filterTermIds(ctx.store, 'tribe_events_cat', ctx.lang, p.categories)) : undefined;
  const tags = isSet(p.tags) ? new Set(filterTermIds(ctx.store, 'post_tag', ctx.lang, p.tags)) : undefined;
  const venues = isSet(p.venue) ? new Set(toList(p.venue).map((x) => toId(x))) : undefined;
  const orgs = isSet(p.organizer) ? new Set(toList(p.organizer).map((x) => toId(x))) : undefined;
  const featured = isSet(p.featured) ? toBool(p.featured) : undefined;
  const include = isSet(p.include) ? toList(p.include).map((x) => toId(x) as number) : undefined;

  const key = JSON.stringify([ctx.lang, [...statuses], b, search, cats && [...cats], tags && [...tags], venues && [...venues],
    orgs && [...orgs], featured, include, isSet(p.post_parent)]);
  let cache = caches.get(ctx.store);
  if (!cache) caches.set(ctx.store, (cache = new Map()));
  const hit = cache.get(key);
  if (hit && hit.version === ctx.store.version) return hit.list;

  const utc = usesUtcDates(ctx);
  const keep = (ev: EventRecord): boolean => {
    if (ev.hideFromListings || ev.refused || !statuses.has(ev.status)) return false;
    const start = utc ? ev.utcStart : ev.start;
    const end = utc ? ev.utcEnd : ev.end;
    if (b.startFrom !== undefined && start < b.startFrom) return false;
    if (b.startAfter !== undefined && start <= b.startAfter) return false;
    if (b.startBefore !== undefined && start >= b.startBefore) return false;
    if (b.endTo !== undefined && end > b.endTo) return false;
    if (b.endAfter !== undefined && end <= b.endAfter) return false;
    if (b.endBefore !== undefined && end >= b.endBefore) return false;
    if (featured !== undefined && ev.featured !== featured) return false;
    if (cats && !ev.categories.some((id) => cats.has(id))) return false;
    if (tags && !ev.tags.some((id) => tags.has(id))) return false;
    if (venues && (ev.venue === null || !venues.has(ev.venue))) return false;
    if (orgs && !ev.organizers.some((id) => orgs.has(id))) return false;
    if (search.length) {
      const text = `${ev.title}\n${ev.description}\n${ev.excerpt}`.toLowerCase();
      if (!search.every((w) => text.includes(w))) return false;
    }
    return true;
  };

  const list: EventRecord[] = [];
  if (isSet(p.post_parent)) {
    // No event has child occurrences without the Pro add-on.
  } else if (include) {
    for (const id of new Set(include)) {
      const ev = ctx.store.events.get(id);
      if (ev && ev.lang === ctx.lang && keep(ev)) list.push(ev);
    }
    list.sort((a, c) => (a.date < c.date ? -1 : a.date > c.date ? 1 : a.id - c.id));
  } else {
    // Sorted by local start: with UTC bounds, the range is widened by the largest zone offset (keep() decides).
    const sorted = ctx.store.sortedEvents(ctx.lang);
    const slack = (v: string, sign: number) => (utc ? formatWall(wallOf(v) + sign * ZONE_SLACK_MS) : v);
    let from = 0;
    if (b.startFrom !== undefined) from = lowerBound(sorted, slack(b.startFrom, -1), false);
    if (b.startAfter !== undefined) from = Math.max(from, lowerBound(sorted, slack(b.startAfter, -1), !utc));
    const to = b.startBefore !== undefined ? lowerBound(sorted, slack(b.startBefore, 1), false) : sorted.length;
    for (let i = from; i < to; i++) if (keep(sorted[i])) list.push(sorted[i]);
  }
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(key, { version: ctx.store.version, list });
  return list;
}

export function listEvents(ctx: Ctx): Reply {
  const p = ctx.params;
  const { page, perPage } = paging(ctx);
  const st = listStatuses(ctx)!;
  const { b, echo } = bounds(ctx);
  const list = matching(ctx, b, st.statuses);
  const query: [string, string][] = [...echo];
  if (typeof p.search === 'string') query.push(['search', p.search]);
  for (const k of ['venue', 'organizer', 'include']) if (isSet(p[k])) query.push([k, toList(p[k]).join(',')]);
  if (isSet(p.featured)) query.push(['featured', toBool(p.featured) ? '1' : '0']);
  query.push(['status', st.label]);
  return archiveReply('event', collectionUrl(ctx.rc, 'events'), query, list, page, perPage,
    (ev) => renderEvent(ctx.store, ev, ctx.rc));
}
