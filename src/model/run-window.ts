/**
 * Which events a run's window covers. Retirement may only consider what the run's selection
 * would have returned: an entry outside it is "not seen" because it was never looked for, and
 * an entry inside it that the selection skipped was never retired (see
 * test/regressions/all-day-window-retire.test.ts). So the runs select and retire with the same
 * rule from here.
 *
 * - `overlap` (ICS import): occurrences overlapping [from, to) in time, as the expansion keeps
 *   them (src/sources/ics/expand.ts `inWindow`).
 * - `local-days` / `utc-days` (site-to-site sync): what the source's
 *   `/events?start_date=<from>&end_date=<to>` returns. The site makes whole days of the bounds
 *   (00:00:00 of `from`'s day, 23:59:59 of `to`'s day) and lists events starting on or after the
 *   first and ending by the last. The Events Calendar compares them with each event's own
 *   wall-clock dates (in the event's zone), except on a site whose zone is UTC, where it compares
 *   the events' UTC dates (`listingRule`). So in Tokyo an all-day event on the first day (15:00 UTC
 *   the day before) is listed, and in New York an event at 20:00 the day before (01:00 UTC on the
 *   first day) is not.
 */
export type WindowRule = 'overlap' | 'local-days' | 'utc-days';
export type ListingRule = Extract<WindowRule, 'local-days' | 'utc-days'>;

export interface RunWindow {
  from: Date;
  to: Date;
  rule: WindowRule;
}

/** An event's times as the site returned them after our write (kept in the ledger). */
export interface EventTimes {
  /** ISO instants. */
  start?: string;
  end?: string;
  /** `YYYY-MM-DD HH:MM:SS` in the event's own time zone. */
  localStart?: string;
  localEnd?: string;
}

/** `YYYY-MM-DD HH:MM:SS` (UTC, as the site returns it) → ISO instant. */
function utcIso(siteUtc: string | undefined): string | undefined {
  return siteUtc ? `${siteUtc.replace(' ', 'T')}Z` : undefined;
}

/** The times of an event record as the site returned it. */
export function recordTimes(r: { start_date: string; end_date: string; utc_start_date?: string; utc_end_date?: string }): EventTimes {
  return { start: utcIso(r.utc_start_date), end: utcIso(r.utc_end_date), localStart: r.start_date, localEnd: r.end_date };
}

/** The calendar day of a window bound as the run sends it to the site (`YYYY-MM-DD`, see sync-site.ts `listBound`). */
function dayOf(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/** The listing's whole-day bounds for a window: first second of `from`'s day, last second of `to`'s day. */
export function listingBounds(w: Pick<RunWindow, 'from' | 'to'>): { first: string; last: string } {
  return { first: `${dayOf(w.from)} 00:00:00`, last: `${dayOf(w.to)} 23:59:59` };
}

/**
 * How a site's listing compares its whole-day bounds, from the zone its REST index publishes:
 * a zone named UTC (or no zone string and offset 0, which it reads as UTC) compares UTC dates.
 * Sites set to TEC's "one time zone for the site" mode compare UTC dates too; the REST index does
 * not say so, so those are taken as the default per-event mode.
 */
export function listingRule(site: { timezoneString?: string; gmtOffset?: number }): ListingRule {
  const zone = site.timezoneString ?? '';
  return zone === 'UTC' || (zone === '' && !site.gmtOffset) ? 'utc-days' : 'local-days';
}

/**
 * Whether the window covers an event with these times. Ledger entries written before the end
 * and local dates were kept count by their UTC start inside [from, to], as they used to;
 * an entry without any start counts as covered.
 */
export function windowCovers(w: RunWindow, t: EventTimes): boolean {
  if (w.rule === 'local-days' && t.localStart !== undefined) {
    const { first, last } = listingBounds(w);
    return t.localStart >= first && (t.localEnd ?? t.localStart) <= last;
  }
  if (t.start === undefined) return true;
  const start = Date.parse(t.start);
  if (t.end === undefined || w.rule === 'local-days') return start >= w.from.getTime() && start <= w.to.getTime();
  const end = Date.parse(t.end);
  // The whole-day bounds only for the rules that use them: a retirement tests every entry of a ledger.
  if (w.rule === 'utc-days') {
    const { first, last } = listingBounds(w);
    return start >= Date.parse(utcIso(first)!) && end <= Date.parse(utcIso(last)!);
  }
  // A zero-length event counts when it starts inside.
  return start < w.to.getTime() && (end > w.from.getTime() || (end === start && start >= w.from.getTime()));
}
