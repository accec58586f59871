/**
 * Date and time cells → calendar parts. No Date() parsing: `new Date('05/03/13')` guesses, and a
 * guess is exactly what we must not do with a spreadsheet of events.
 *
 * Always understood: ISO (`2024-01-05`, `2024-01-05 10:00[:00]`, `2024-01-05T10:00`, basic
 * `20240105[T1000[00]]`), year-first `2024/01/05`, and month names (`January 5, 2024`, `apr 19,
 * 2016`, `5 Jan 2024`, `Fri, 5-Jan-24`): those are unambiguous. Day/month-first numeric dates
 * (`05/03/13`) need an order: from `--date-format`, or from the whole-file pre-scan (inspect.ts).
 * Two-digit years are 20YY.
 */

import { daysInMonth } from '../../model/timezones.ts';
import { memoized } from '../../util/memo.ts';

export type DateOrder = 'DMY' | 'MDY' | 'YMD';

export const ORDER_FORMAT: Record<DateOrder, string> = { DMY: 'DD/MM/YYYY', MDY: 'MM/DD/YYYY', YMD: 'YYYY/MM/DD' };

export interface YMD {
  y: number;
  m: number;
  d: number;
}
export interface HMS {
  h: number;
  mi: number;
  s: number;
}
export interface DateTimeValue {
  date: YMD;
  time?: HMS;
  /** Minutes east of UTC when the cell carried its own offset or `Z`. */
  offsetMinutes?: number;
}
export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

/** `DD/MM/YYYY`, `D.M.YYYY`, `MM-DD-YY`, `YYYY/MM/DD`… → the order of the parts. */
export function parseDateFormat(format: string): DateOrder | undefined {
  const tokens = format.trim().toUpperCase().split(/[\s/.\-]+/);
  if (tokens.length !== 3) return undefined;
  const order = tokens.map((t) => (/^D{1,2}$/.test(t) ? 'D' : /^M{1,2}$/.test(t) ? 'M' : /^(?:YY|YYYY)$/.test(t) ? 'Y' : '?')).join('');
  return order === 'DMY' || order === 'MDY' || order === 'YMD' ? order : undefined;
}

const MONTHS: Record<string, number> = {
  january: 1, jan: 1, february: 2, feb: 2, march: 3, mar: 3, april: 4, apr: 4, may: 5, june: 6, jun: 6,
  july: 7, jul: 7, august: 8, aug: 8, september: 9, sept: 9, sep: 9, october: 10, oct: 10, november: 11,
  nov: 11, december: 12, dec: 12,
};
const MONTH_RE = Object.keys(MONTHS).sort((a, b) => b.length - a.length).join('|');
const WEEKDAY_RE = 'monday|mon|tuesday|tues|tue|wednesday|wed|thursday|thurs|thu|friday|fri|saturday|sat|sunday|sun';
const END = '(?=$|[\\sT,@])';

const YEAR_FIRST = new RegExp(`^(\\d{4})([-/.])(\\d{1,2})\\2(\\d{1,2})${END}`);
const YEAR_LAST = new RegExp(`^(\\d{1,2})([-/.])(\\d{1,2})\\2(\\d{4}|\\d{2})${END}`);
const BASIC = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})?(Z)?)?$/i;
const NAME_MONTH_FIRST = new RegExp(
  `^(?:(?:${WEEKDAY_RE})\\.?,?\\s+)?(${MONTH_RE})\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})${END}`,
  'i',
);
const NAME_DAY_FIRST = new RegExp(
  `^(?:(?:${WEEKDAY_RE})\\.?,?\\s+)?(\\d{1,2})(?:st|nd|rd|th)?\\.?[\\s-]+(${MONTH_RE})\\.?,?[\\s-]+(\\d{4}|\\d{2})${END}`,
  'i',
);
const RELATIVE = new RegExp(
  `^(?:today|tomorrow|yesterday|tonight|now)$|\\b(?:next|last|this|ago)\\b|^(?:last|next|this)|(?:${WEEKDAY_RE})|^[+-]?\\d+\\s*(?:d|w|m|y|days?|weeks?|months?|years?)$|^in\\s+\\d+`,
  'i',
);

const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** Days in a month; years 0-99 count as 1900-1999, as Date.UTC, which this once called, reads them. */
function monthLength(y: number, m: number): number {
  return daysInMonth(y < 100 ? y + 1900 : y, m);
}

function fullYear(y: string): number {
  return y.length === 2 ? 2000 + Number(y) : Number(y);
}

function checkDate(cell: string, y: number, m: number, d: number): Parsed<YMD> {
  if (m < 1 || m > 12) return { ok: false, reason: `'${cell}' is not a real date (no month ${m})` };
  const dim = monthLength(y, m);
  if (d < 1 || d > dim) {
    return { ok: false, reason: `'${cell}' is not a real date (${MONTH_NAMES[m - 1]} ${y} has ${dim} days)` };
  }
  if (y < 1000 || y > 9999) return { ok: false, reason: `'${cell}' has an out-of-range year` };
  return { ok: true, value: { y, m, d } };
}

/** For the pre-scan: the two leading parts of a day/month-first numeric date, else undefined. */
export function numericDateParts(cell: string): { first: number; second: number } | undefined {
  const m = YEAR_LAST.exec(cell.trim());
  return m ? { first: Number(m[1]), second: Number(m[3]) } : undefined;
}

export function isRelativeDate(cell: string): boolean {
  return RELATIVE.test(cell.trim());
}

/** A remembered result is shared by every later call: frozen, so a caller that mutates one throws instead of corrupting the rest. */
function frozen<T extends Parsed<{ date?: YMD; time?: HMS }>>(r: T): T {
  if (r.ok) {
    if (r.value.date) Object.freeze(r.value.date);
    if (r.value.time) Object.freeze(r.value.time);
    Object.freeze(r.value);
  }
  return Object.freeze(r);
}

/** One remembered reader per date order: a file's dates and times repeat (src/util/memo.ts). */
const DATE_TIMES = {
  DMY: memoized((cell) => frozen(readDateTime(cell, 'DMY'))),
  MDY: memoized((cell) => frozen(readDateTime(cell, 'MDY'))),
  YMD: memoized((cell) => frozen(readDateTime(cell, 'YMD'))),
  none: memoized((cell) => frozen(readDateTime(cell, undefined))),
};

/** A date cell, optionally with a time. The result is shared with other calls, and frozen. */
export function parseDateTime(cell: string, order: DateOrder | undefined): Parsed<DateTimeValue> {
  return DATE_TIMES[order ?? 'none'](cell);
}

function readDateTime(cell: string, order: DateOrder | undefined): Parsed<DateTimeValue> {
  const v = cell.trim();
  let date: Parsed<YMD> | undefined;
  let rest = '';

  let m = BASIC.exec(v);
  if (m) {
    const date = checkDate(v, Number(m[1]), Number(m[2]), Number(m[3]));
    if (!date.ok) return date;
    if (!m[4]) return { ok: true, value: { date: date.value } };
    const time = checkTime(v, Number(m[4]), Number(m[5]), Number(m[6] ?? 0));
    if (!time.ok) return time;
    return { ok: true, value: { date: date.value, time: time.value, ...(m[7] ? { offsetMinutes: 0 } : {}) } };
  }
  if ((m = YEAR_FIRST.exec(v))) {
    date = checkDate(v, Number(m[1]), Number(m[3]), Number(m[4]));
    rest = v.slice(m[0].length);
  } else if ((m = YEAR_LAST.exec(v))) {
    if (!order) {
      return { ok: false, reason: `'${v}' is ambiguous (day or month first? give the order with --date-format)` };
    }
    if (order === 'YMD') return { ok: false, reason: `'${v}' does not match the date format ${ORDER_FORMAT.YMD}` };
    const [a, b] = [Number(m[1]), Number(m[3])];
    date = order === 'DMY' ? checkDate(v, fullYear(m[4]!), b, a) : checkDate(v, fullYear(m[4]!), a, b);
    rest = v.slice(m[0].length);
  } else if ((m = NAME_MONTH_FIRST.exec(v))) {
    date = checkDate(v, Number(m[3]), MONTHS[m[1]!.toLowerCase()]!, Number(m[2]));
    rest = v.slice(m[0].length);
  } else if ((m = NAME_DAY_FIRST.exec(v))) {
    date = checkDate(v, fullYear(m[3]!), MONTHS[m[2]!.toLowerCase()]!, Number(m[1]));
    rest = v.slice(m[0].length);
  }
  if (!date) {
    if (isRelativeDate(v)) return { ok: false, reason: `'${v}' is a relative date, which is not supported (give a calendar date)` };
    return { ok: false, reason: `'${v}' is not a date` };
  }
  if (!date.ok) return date;
  // The time may follow as `T10:00`, ` 10:00`, `, 10:00`, ` at 10:00` or ` @ 10:00`.
  rest = rest.replace(/^[\s,]+/, '').replace(/^(?:T|at\b|@)\s*/i, '');
  if (!rest) return { ok: true, value: { date: date.value } };
  const time = parseTime(rest);
  if (!time.ok) return { ok: false, reason: `'${v}' has an unreadable time: ${time.reason}` };
  return { ok: true, value: { date: date.value, ...time.value } };
}

function checkTime(cell: string, h: number, mi: number, s: number, meridiem?: string): Parsed<HMS> {
  if (meridiem) {
    if (h < 0 || h > 12) return { ok: false, reason: `'${cell}' is not a time (hour ${h} with AM/PM)` };
    const pm = meridiem.toLowerCase().startsWith('p');
    h = (h % 12) + (pm ? 12 : 0);
  }
  if (h === 24 && mi === 0 && s === 0) return { ok: true, value: { h: 23, mi: 59, s: 59 } }; // "24:00" = end of day
  if (h > 23 || mi > 59 || s > 59) return { ok: false, reason: `'${cell}' is not a time` };
  return { ok: true, value: { h, mi, s } };
}

const TIME = /^(\d{1,2})(?:[:.h](\d{2}))?(?::(\d{2})(?:[.,]\d+)?)?\s*(a\.?\s?m\.?|p\.?\s?m\.?)?\s*(z|utc|gmt|[+-]\d{2}(?::?\d{2})?)?$/i;
const HHMM = /^(\d{1,2})(\d{2})\s*(a\.?m\.?|p\.?m\.?)?$/i;

function offsetOf(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const t = text.toLowerCase();
  if (t === 'z' || t === 'utc' || t === 'gmt') return 0;
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(t)!;
  const minutes = Number(m[2]) * 60 + Number(m[3] ?? 0);
  return m[1] === '-' ? -minutes : minutes;
}

/**
 * `7:30`, `07:30:00`, `8:00 AM`, `5pm`, `5 p.m.`, `19.30`, `15h30`, `1530` (HHMM), `15` (hour), `noon`.
 * Remembered like parseDateTime: the result is shared and frozen.
 */
export const parseTime = memoized((cell: string) => frozen(readTime(cell)));

function readTime(cell: string): Parsed<{ time: HMS; offsetMinutes?: number }> {
  const v = cell.trim();
  const lower = v.toLowerCase();
  if (lower === 'noon' || lower === 'midday') return { ok: true, value: { time: { h: 12, mi: 0, s: 0 } } };
  if (lower === 'midnight') return { ok: true, value: { time: { h: 0, mi: 0, s: 0 } } };
  let m = TIME.exec(v);
  if (m) {
    const t = checkTime(v, Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0), m[4]?.replace(/[\s.]/g, ''));
    if (!t.ok) return t;
    const offset = offsetOf(m[5]);
    return { ok: true, value: { time: t.value, ...(offset !== undefined ? { offsetMinutes: offset } : {}) } };
  }
  if ((m = HHMM.exec(v))) {
    const t = checkTime(v, Number(m[1]), Number(m[2]), 0, m[3]?.replace(/\./g, ''));
    return t.ok ? { ok: true, value: { time: t.value } } : t;
  }
  return { ok: false, reason: `'${v}' is not a time` };
}

/** Two-digit numbers as written in wall times, made once (a wall time is written twice per row). */
const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => (n < 10 ? `0${n}` : `${n}`));
const p2 = (n: number): string => TWO_DIGITS[n] ?? (n < 10 ? `0${n}` : `${n}`);
const p4 = (n: number): string => (n >= 1000 ? `${n}` : String(n).padStart(4, '0'));

export function formatWall(date: YMD, time: HMS): string {
  return `${p4(date.y)}-${p2(date.m)}-${p2(date.d)} ${p2(time.h)}:${p2(time.mi)}:${p2(time.s)}`;
}

export function addDays(date: YMD, days: number): YMD {
  const t = new Date(Date.UTC(date.y, date.m - 1, date.d + days));
  return { y: t.getUTCFullYear(), m: t.getUTCMonth() + 1, d: t.getUTCDate() };
}

export function compareDates(a: YMD, b: YMD): number {
  return a.y - b.y || a.m - b.m || a.d - b.d;
}

export function compareTimes(a: HMS, b: HMS): number {
  return a.h - b.h || a.mi - b.mi || a.s - b.s;
}

/** Epoch ms of a wall time at a fixed offset (minutes east of UTC). */
export function instantOf(date: YMD, time: HMS, offsetMinutes: number): number {
  return Date.UTC(date.y, date.m - 1, date.d, time.h, time.mi, time.s) - offsetMinutes * 60_000;
}
