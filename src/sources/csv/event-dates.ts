import {
  addDays,
  compareDates,
  compareTimes,
  formatWall,
  instantOf,
  parseDateTime,
  parseTime,
  type DateOrder,
  type DateTimeValue,
  type HMS,
  type YMD,
} from './dates.ts';
import type { EventField } from './fields.ts';
import type { Row } from './row.ts';
import { wallTimeIn } from './zones.ts';

/**
 * Start and end of an event row, as wall times in the row's zone.
 *
 * - All-day: `all_day` true, or no start time at all → 00:00:00 of the first day to 23:59:59 of
 *   the last day; times on an all-day row are ignored. An end date with time 00:00 after the start
 *   date is taken as an exclusive end (Outlook's export) and moved back one day.
 * - Timed, no end → end = start. End time without end date → same day, or the next day when it is
 *   earlier than the start time (overnight, e.g. 22:00-02:00). End date without end time → that day
 *   23:59:59 (or = start when on the same day).
 * - Date-times carrying an offset/`Z` are converted to the row's zone (the site ignores offsets).
 */

type EventRow = Row<EventField>;

interface Endpoint {
  date: YMD;
  time?: HMS;
  offsetMinutes?: number;
}

interface Wall {
  date: YMD;
  time: HMS;
}

export interface EventDates {
  all_day: boolean;
  start_date: string;
  end_date: string;
}

const MIDNIGHT: HMS = { h: 0, mi: 0, s: 0 };
const END_OF_DAY: HMS = { h: 23, mi: 59, s: 59 };
const NO_DATE: YMD = Object.freeze({ y: 0, m: 0, d: 0 });

function withOffset(offsetMinutes: number | undefined): { offsetMinutes?: number } {
  return offsetMinutes !== undefined ? { offsetMinutes } : {};
}

/** Date (+ time) of one end of the event; undefined when both cells are empty, null after a failure. */
function readEndpoint(row: EventRow, dateField: EventField, timeField: EventField, order: DateOrder | undefined): Endpoint | undefined | null {
  const dateCell = row.get(dateField);
  const timeCell = row.get(timeField);
  let date: DateTimeValue | undefined;
  if (dateCell) {
    const r = parseDateTime(dateCell, order);
    if (!r.ok) return row.fail(dateField, r.reason) ?? null;
    date = r.value;
  }
  let time = date?.time;
  let offsetMinutes = date?.offsetMinutes;
  if (timeCell) {
    const t = parseTime(timeCell);
    if (!t.ok) return row.fail(timeField, t.reason) ?? null;
    time = t.value.time;
    if (t.value.offsetMinutes !== undefined) offsetMinutes = t.value.offsetMinutes;
  }
  // A time with no date: only meaningful for the end (same day as the start).
  if (!date && !time) return undefined;
  const point: Endpoint = { date: date ? date.date : NO_DATE };
  if (time) point.time = time;
  if (offsetMinutes !== undefined) point.offsetMinutes = offsetMinutes;
  return point;
}

/** An endpoint with its own offset → wall time in the row's zone. */
function inZone(p: Endpoint, zone: string): Wall {
  if (p.offsetMinutes === undefined || !p.time) return { date: p.date, time: p.time! };
  const w = wallTimeIn(instantOf(p.date, p.time, p.offsetMinutes), zone);
  return { date: { y: w.y, m: w.m, d: w.d }, time: { h: w.h, mi: w.mi, s: w.s } };
}

function allDayDates(row: EventRow, start: Endpoint, end: Endpoint | undefined, allDayFlag: boolean | undefined): EventDates | undefined {
  if (allDayFlag !== true && end?.time && !start.time) {
    return row.fail('start_date', 'has no time but the end has one');
  }
  const endHasDate = !!row.get('end_date');
  let last = endHasDate && end ? end.date : start.date;
  if (endHasDate && end?.time && compareTimes(end.time, MIDNIGHT) === 0 && compareDates(last, start.date) > 0) {
    last = addDays(last, -1); // exclusive end (Outlook exports all-day events ending at 00:00 next day)
  }
  if (compareDates(last, start.date) < 0) {
    return row.fail(row.has('end_date') ? 'end_date' : 'start_date', 'the end date is before the start date');
  }
  return { all_day: true, start_date: formatWall(start.date, MIDNIGHT), end_date: formatWall(last, END_OF_DAY) };
}

/** The end of a timed event, in the row's zone (see the header comment for the rules). */
function timedEnd(start: Endpoint & { time: HMS }, end: Endpoint | undefined, endHasDate: boolean, s: Wall, timezone: string): Wall {
  if (end && endHasDate) {
    const endTime = end.time ?? (compareDates(end.date, start.date) === 0 ? start.time : END_OF_DAY);
    return inZone({ ...end, time: endTime }, timezone);
  }
  if (end?.time) {
    // End time alone: same day as the start, or the next one when it is earlier (overnight).
    const sameDay = inZone({ date: start.date, time: end.time, ...withOffset(end.offsetMinutes) }, timezone);
    return compareTimes(end.time, start.time) < 0 && end.offsetMinutes === undefined ? { date: addDays(sameDay.date, 1), time: sameDay.time } : sameDay;
  }
  return s;
}

function timedDates(row: EventRow, start: Endpoint & { time: HMS }, end: Endpoint | undefined, timezone: string): EventDates | undefined {
  const endHasDate = !!row.get('end_date');
  const s = inZone(start, timezone);
  const e = timedEnd(start, end, endHasDate, s, timezone);
  const startWall = formatWall(s.date, s.time);
  const endWall = formatWall(e.date, e.time);
  if (endWall < startWall) {
    return row.fail(row.has('end_date') && endHasDate ? 'end_date' : 'end_time', `the end (${endWall}) is before the start (${startWall})`);
  }
  return { all_day: false, start_date: startWall, end_date: endWall };
}

export function eventDates(row: EventRow, timezone: string): EventDates | undefined {
  const order = row.ctx.order;
  if (!row.get('start_date')) {
    return row.fail('start_date', row.get('start_time') ? 'is empty (a time alone is not enough)' : 'is empty (a start date is required)');
  }
  const start = readEndpoint(row, 'start_date', 'start_time', order);
  const end = readEndpoint(row, 'end_date', 'end_time', order);
  if (!start || end === null) return undefined;
  const allDayFlag = row.bool('all_day');
  if (allDayFlag === true || !start.time) return allDayDates(row, start, end, allDayFlag);
  return timedDates(row, start as Endpoint & { time: HMS }, end, timezone);
}
