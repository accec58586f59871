import type { EventListQuery } from '../api/index.ts';
import { formatDay } from '../model/timezones.ts';
import type { EventTiming } from './timing.ts';

/**
 * Which events a window holds, and the `/events` query that finds them.
 *
 * The rule: an event belongs to the window [from, to] when it OVERLAPS it, i.e. it starts at or
 * before `to` and ends at or after `from`. An event that started before the window and is still
 * running inside it (a festival, an exhibition) is in; an event wholly before or after is out.
 *
 * The site cannot express that with its window parameters alone (src/sandbox/event-list.ts models them): `start_date`
 * means "starts on/after" and would drop the event under way at the window start, and `end_date`
 * means "ends on/before" and would drop an event that starts inside but ends after the window.
 * So:
 * - `start_date=1970-01-02` and `end_date=2100-12-31` are sent explicitly, only to switch off the
 *   site's default window (yesterday → +2 years), which would otherwise apply on 6.17.x and on
 *   sites that keep the defaults when a `starts_*`/`ends_*` bound is present. Not 1970-01-01:
 *   the site's date validator rejects any value that is Unix time 0 (`epochSafeDay`);
 * - `ends_after` and `starts_before` do the narrowing. They are whole-day bounds moved to 23:59:59
 *   of their day and compared with the site's LOCAL wall times, while events sit in many zones
 *   (up to 14 h from UTC). Both are therefore widened by days: `ends_after=<from − 2 days>` (end ≥
 *   00:00 of the day before `from`) and `starts_before=<to + 1 day>` (start ≤ 23:59:59 the day after);
 * - the exact rule is then applied locally on each event's instants (`inWindow`).
 * Hidden events (`hide_from_listings`) are never listed by the site, so they are not in the export
 * (src/sandbox/event-list.ts drops them the same way); a record that still says hidden is dropped locally for the same reason.
 */

export interface ExportFilters {
  categories?: (string | number)[];
  tags?: (string | number)[];
  venue?: number[];
  organizer?: number[];
  featured?: boolean;
  search?: string;
  status?: string;
}

export interface ExportWindow {
  from: Date;
  to: Date;
}

const DAY_MS = 86_400_000;
const FAR_PAST = '1970-01-02';
const EPOCH_DAY = '1970-01-01';
const FAR_FUTURE = '2100-12-31';

function utcDay(ms: number): string {
  return formatDay(Math.floor(ms / DAY_MS));
}

/**
 * Real sites validate every date filter with PHP's `strtotime()` and take its result as a boolean,
 * so the day that is Unix time 0 is "not a date" (400 rest_invalid_param). Whole-day bounds
 * never need that exact day: move it one day outwards, which only widens the query (the exact
 * window is applied locally).
 */
export function epochSafeDay(day: string, outwards: 'earlier' | 'later'): string {
  if (day !== EPOCH_DAY) return day;
  return outwards === 'earlier' ? '1969-12-31' : '1970-01-02';
}

/** The list query for a window and the user's filters (without page/per_page: the iterator adds them). */
export function windowQuery(window: ExportWindow, filters: ExportFilters = {}): EventListQuery {
  const q: EventListQuery = {
    start_date: FAR_PAST,
    end_date: FAR_FUTURE,
    ends_after: epochSafeDay(utcDay(window.from.getTime() - 2 * DAY_MS), 'earlier'),
    starts_before: epochSafeDay(utcDay(window.to.getTime() + DAY_MS), 'later'),
    // A feed is public: without a status an authenticated list is `any`, drafts included (as src/sandbox/event-list.ts lists them).
    status: filters.status ?? 'publish',
  };
  if (filters.categories?.length) q.categories = filters.categories;
  if (filters.tags?.length) q.tags = filters.tags;
  if (filters.venue?.length) q.venue = filters.venue;
  if (filters.organizer?.length) q.organizer = filters.organizer;
  if (filters.featured !== undefined) q.featured = filters.featured;
  if (filters.search) q.search = filters.search;
  return q;
}

/** The overlap rule, on instants: start ≤ to and end ≥ from. */
export function inWindow(t: Pick<EventTiming, 'startSec' | 'endSec'>, window: ExportWindow): boolean {
  return t.startSec * 1000 <= window.to.getTime() && t.endSec * 1000 >= window.from.getTime();
}
