/**
 * Which events a run's window covers. Retirement may only consider what the run's selection
 * would have returned: an entry outside it is "not seen" because it was never looked for, and
 * an entry inside it that the selection skipped was never retired (see
 * test/regressions/all-day-window-retire.test.ts). So the runs select and retire with the same
 * rule from here.
 *
 * - `overlap` (ICS import): occurrences overlapping [from, to) in time, as the expansion keeps
 *   them (src/sources/ics/expand.ts `inWindow`).
 * - `listing` (site-to-site sync): what `/events?start_date=<from>&end_date=<to>` returns. The
 *   site compares its whole-day bounds with each event's own wall-clock dates (in the event's
 *   time zone), not with instants: `start_date` becomes 00:00:00 of its day and the event must
 *   start on or after it, `end_date` becomes 23:59:59 of its day and the event must end by then.
 *   An all-day event on the first day in Tokyo starts at 15:00 UTC the day before, yet is listed;
 *   an event at 20:00 the day before in New York starts inside the window in UTC, yet is not.
 */
export type WindowRule = 'overlap' | 'listing';

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

/** The calendar day of a window bound as the run sends it to the site (`YYYY-MM-DD`, see sync-site.ts `listBound`). */
function dayOf(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/** The listing's whole-day bounds for a window: first second of `from`'s day, last second of `to`'s day. */
export function listingBounds(w: Pick<RunWindow, 'from' | 'to'>): { first: string; last: string } {
  return { first: `${dayOf(w.from)} 00:00:00`, last: `${dayOf(w.to)} 23:59:59` };
}

/**
 * Whether the window covers an event with these times. Without the times it needs (ledger entries
 * written before they were kept) the entry's UTC start inside [from, to] decides, as it used to;
 * without any start the entry counts as covered.
 */
export function windowCovers(w: RunWindow, t: EventTimes): boolean {
  if (w.rule === 'listing' && t.localStart !== undefined) {
    const { first, last } = listingBounds(w);
    return t.localStart >= first && (t.localEnd ?? t.localStart) <= last;
  }
  if (t.start === undefined) return true;
  const start = Date.parse(t.start);
  const from = w.from.getTime();
  const to = w.to.getTime();
  if (w.rule === 'listing' || t.end === undefined) return start >= from && start <= to;
  const end = Date.parse(t.end);
  // A zero-length event counts when it starts inside.
  return start < to && (end > from || (end === start && start >= from));
}
