import { offsetAt as zoneOffsetAt } from '../model/timezones.ts';

/**
 * Wall-clock dates and time zones the way the calendar site handles them.
 *
 * A "wall" value is epoch milliseconds whose UTC fields ARE the local wall-clock reading; it lets
 * the sandbox do day arithmetic without any process-timezone dependence. Stored and returned dates
 * are `YYYY-MM-DD HH:MM:SS` strings, which also compare correctly as plain strings.
 */

const DAY = 86_400_000;

export function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** `YYYY-MM-DD HH:MM:SS` of a wall value. */
export function formatWall(wall: number): string {
  const d = new Date(wall);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** Parses a stored `YYYY-MM-DD HH:MM:SS` string back to a wall value. */
export function wallOf(s: string): number {
  return Date.UTC(+s.slice(0, 4), +s.slice(5, 7) - 1, +s.slice(8, 10), +s.slice(11, 13), +s.slice(14, 16), +s.slice(17, 19));
}

export function startOfDay(wall: number): number {
  return Math.floor(wall / DAY) * DAY;
}

export function endOfDay(wall: number): number {
  return startOfDay(wall) + DAY - 1000;
}

/** The `*_date_details` object: zero-padded strings, as PHP's date() gives them. */
export function dateDetails(s: string): Record<string, string> {
  return {
    year: s.slice(0, 4), month: s.slice(5, 7), day: s.slice(8, 10),
    hour: s.slice(11, 13), minutes: s.slice(14, 16), seconds: s.slice(17, 19),
  };
}

// ---------------------------------------------------------------------------------------------
// Time zones

const FIXED = /^UTC(?:([+-])(\d{1,2})(?:\.(\d+))?)?$/;

/** Fixed offset in ms of a `UTC±h[.frac]` zone, or undefined for named zones. */
function fixedOffset(tz: string): number | undefined {
  const m = FIXED.exec(tz);
  if (!m) return undefined;
  if (!m[1]) return 0;
  const hours = Number(`${m[2]}.${m[3] ?? '0'}`);
  return (m[1] === '-' ? -1 : 1) * Math.round(hours * 3_600_000);
}

const validity = new Map<string, boolean>();

/** Any IANA zone Intl knows, `UTC`, or `UTC±h[.frac]`; an empty string means "site default". */
export function isValidTimezone(tz: string): boolean {
  if (tz === '' || fixedOffset(tz) !== undefined) return true;
  let ok = validity.get(tz);
  if (ok === undefined) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: tz });
      ok = true;
    } catch {
      ok = false;
    }
    validity.set(tz, ok);
  }
  return ok;
}

/**
 * Offset (ms) of `tz` from UTC at the given instant: the site's `UTC±h[.frac]` zones as this file reads
 * them, named zones from the one zone module (src/model/timezones.ts, seconds there).
 */
export function offsetAt(tz: string, instant: number): number {
  return fixedOffset(tz) ?? zoneOffsetAt(tz, Math.floor(instant / 1000)) * 1000;
}

/**
 * The instant a wall-clock reading in `tz` denotes, as PHP's DateTime reads it: the offset at the wall
 * time read as UTC, then the offset at the wall time less that one. So a time repeated when DST ends is
 * the later instant east of UTC (Europe/Berlin 02:30 on its last October Sunday: 01:30Z) and the earlier
 * west of it (America/New_York); a time skipped when DST starts is moved forward by the gap, east and
 * west (New York 02:30 on its March Sunday: 07:30Z, as 03:30 EDT). Measured on TEC 6.17.1 and 6.17.2:
 * test/contract/ambiguous-times.test.ts.
 */
export function wallToInstant(wall: number, tz: string): number {
  const first = offsetAt(tz, wall);
  const second = offsetAt(tz, wall - first);
  const instant = wall - second;
  if (instantToWall(instant, tz) === wall) return instant;
  // In a gap: the offset in force before it (transitions are months apart, so a day before is before it).
  return wall - offsetAt(tz, wall - 86_400_000);
}

export function instantToWall(instant: number, tz: string): number {
  return instant + offsetAt(tz, instant);
}

/** Converts a stored local date string in `tz` to the UTC date string. */
export function localToUtc(local: string, tz: string): string {
  return formatWall(wallToInstant(wallOf(local), tz));
}

/** ISO 8601 with offset, as the schema.org JSON-LD carries it. */
export function isoWithOffset(local: string, tz: string): string {
  const wall = wallOf(local);
  const off = offsetAt(tz, wallToInstant(wall, tz));
  const sign = off < 0 ? '-' : '+';
  const abs = Math.abs(off) / 60_000;
  return `${local.replace(' ', 'T')}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

const ABBR_LOCALES = ['en-US', 'en-GB', 'en-AU', 'en-IN', 'en-NZ'];
const abbrFormatters = new Map<string, Intl.DateTimeFormat>();
const abbrCache = new Map<string, string>();

function abbrFormatter(locale: string, tz: string): Intl.DateTimeFormat {
  const key = `${locale}|${tz}`;
  let f = abbrFormatters.get(key);
  if (!f) abbrFormatters.set(key, (f = new Intl.DateTimeFormat(locale, { timeZone: tz, timeZoneName: 'short' })));
  return f;
}

/**
 * Short zone name like PHP's `T` format: EST, CEST, BST… PHP falls back to `+03`-style names for
 * zones without an abbreviation; `UTC±h` zones are their own abbreviation.
 */
export function timezoneAbbr(tz: string, instant: number): string {
  if (fixedOffset(tz) !== undefined) return tz;
  // Names only change with the offset, so one lookup per zone and offset is enough.
  const offset = offsetAt(tz, instant);
  const key = `${tz}|${offset}`;
  const known = abbrCache.get(key);
  if (known !== undefined) return known;
  let name: string | undefined;
  for (const locale of ABBR_LOCALES) {
    const candidate = abbrFormatter(locale, tz).formatToParts(new Date(instant)).find((p) => p.type === 'timeZoneName')?.value;
    if (candidate && !/^(GMT|UTC)[+-]/.test(candidate)) {
      name = candidate;
      break;
    }
  }
  if (name === undefined) {
    const off = offset / 60_000;
    const abs = Math.abs(off);
    name = `${off < 0 ? '-' : '+'}${pad(Math.floor(abs / 60))}${abs % 60 ? pad(abs % 60) : ''}`;
  }
  abbrCache.set(key, name);
  return name;
}

// ---------------------------------------------------------------------------------------------
// Parsing what clients send (a small strtotime)

const MONTHS: Record<string, number> = {
  jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, sept: 9, oct: 10, nov: 11, dec: 12,
  january: 1, february: 2, march: 3, april: 4, june: 6, july: 7, august: 8, september: 9, october: 10,
  november: 11, december: 12,
};
const UNITS: Record<string, number> = { sec: 1000, second: 1000, min: 60_000, minute: 60_000, hour: 3_600_000, day: DAY, week: 7 * DAY };

/** `10:00`, `10:00:30`, `10am`, `10:30 pm` → ms since midnight. */
function parseTimeOfDay(s: string): number | undefined {
  const m = /^(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*(am|pm)?$/i.exec(s.trim());
  if (!m || (!m[2] && !m[4])) return undefined;
  let h = Number(m[1]);
  const mi = Number(m[2] ?? 0);
  const sec = Number(m[3] ?? 0);
  if (m[4]) {
    if (h < 1 || h > 12) return undefined;
    h = (h % 12) + (m[4].toLowerCase() === 'pm' ? 12 : 0);
  }
  if (h > 24 || mi > 59 || sec > 59) return undefined;
  return ((h * 60 + mi) * 60 + sec) * 1000;
}

function ymd(y: number, mo: number, d: number, timeMs = 0): number | undefined {
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || y < 1000 || y > 9999) return undefined;
  // Date.UTC rolls impossible days over (Feb 30 → Mar 2) exactly like PHP does.
  return Date.UTC(y, mo - 1, d) + timeMs;
}

/** Splits `<date part> [time]` where the time is optional; returns the time in ms. */
function withOptionalTime(rest: string | undefined): number | undefined {
  if (!rest || !rest.trim()) return 0;
  return parseTimeOfDay(rest.replace(/^(at|T)\s*/i, ''));
}

/**
 * Parses a date the way the site's validator accepts it, returning the wall value it keeps:
 * `Y-m-d H:i:s`, ISO 8601 (a trailing `Z` or offset is dropped, keeping the wall clock, as real
 * sites do), `m/d/Y`, `d.m.Y`, month names, Unix timestamps (their UTC wall clock), and the common
 * relative words (now, today, tomorrow, yesterday, midnight, noon, ±N units). Returns undefined
 * when the value is not a date.
 */
export function parseDateInput(value: unknown, nowWall: number): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? Math.trunc(value) * 1000 : undefined;
  if (typeof value !== 'string') return undefined;
  const s = value.trim();
  if (s === '') return undefined;
  if (/^-?\d+$/.test(s)) return Number(s) * 1000;

  let m = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ]\s*(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?)?\s*(?:Z|[+-]\d{2}(?::?\d{2})?|UTC|GMT)?$/i.exec(s);
  if (m) {
    const time = m[4] ? ((Number(m[4]) * 60 + Number(m[5])) * 60 + Number(m[6] ?? 0)) * 1000 : 0;
    if (m[4] && (Number(m[4]) > 24 || Number(m[5]) > 59 || Number(m[6] ?? 0) > 59)) return undefined;
    return ymd(Number(m[1]), Number(m[2]), Number(m[3]), time);
  }
  m = /^(\d{4})\/(\d{1,2})\/(\d{1,2})(.*)$/.exec(s);
  if (m) return timed(ymd(Number(m[1]), Number(m[2]), Number(m[3])), m[4]);
  m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(.*)$/.exec(s); // PHP reads slashes as American m/d/Y
  if (m) return timed(ymd(Number(m[3]), Number(m[1]), Number(m[2])), m[4]);
  m = /^(\d{1,2})[.-](\d{1,2})[.-](\d{4})(.*)$/.exec(s); // dashes and dots as European d-m-Y
  if (m) return timed(ymd(Number(m[3]), Number(m[2]), Number(m[1])), m[4]);
  m = /^([a-z]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})(.*)$/i.exec(s);
  if (m && MONTHS[m[1].toLowerCase()]) return timed(ymd(Number(m[3]), MONTHS[m[1].toLowerCase()], Number(m[2])), m[4]);
  m = /^(\d{1,2})\s+([a-z]+)\.?,?\s+(\d{4})(.*)$/i.exec(s);
  if (m && MONTHS[m[2].toLowerCase()]) return timed(ymd(Number(m[3]), MONTHS[m[2].toLowerCase()], Number(m[1])), m[4]);
  return parseRelative(s.toLowerCase(), nowWall);
}

function timed(day: number | undefined, rest: string): number | undefined {
  if (day === undefined) return undefined;
  const t = withOptionalTime(rest.replace(/^,/, ''));
  return t === undefined ? undefined : day + t;
}

function parseRelative(s: string, nowWall: number): number | undefined {
  if (s === 'now') return Math.floor(nowWall / 1000) * 1000;
  const day = /^(today|midnight|tomorrow|yesterday|noon)\b\s*(.*)$/.exec(s);
  if (day) {
    const base = startOfDay(nowWall) + (day[1] === 'tomorrow' ? DAY : day[1] === 'yesterday' ? -DAY : 0);
    if (day[1] === 'noon' && !day[2]) return base + DAY / 2;
    const t = withOptionalTime(day[2]);
    return t === undefined ? undefined : base + t;
  }
  const rel = /^([+-]?\d+)\s*(sec|second|min|minute|hour|day|week|month|year)s?(?:\s+(ago))?$/.exec(s);
  if (rel) {
    const n = Number(rel[1]) * (rel[3] ? -1 : 1);
    const base = Math.floor(nowWall / 1000) * 1000;
    if (rel[2] === 'month' || rel[2] === 'year') {
      const d = new Date(base);
      d.setUTCMonth(d.getUTCMonth() + n * (rel[2] === 'year' ? 12 : 1));
      return d.getTime();
    }
    return base + n * UNITS[rel[2]];
  }
  const t = parseTimeOfDay(s);
  return t === undefined ? undefined : startOfDay(nowWall) + t;
}

/** Adds calendar years to a wall value (Feb 29 rolls to Mar 1 like PHP). */
export function addYears(wall: number, years: number): number {
  const d = new Date(wall);
  d.setUTCFullYear(d.getUTCFullYear() + years);
  return d.getTime();
}

/** The Unix time PHP's strtotime() gives a string (WordPress runs PHP in UTC; an offset or `Z` counts). */
function phpTimestamp(value: string, nowWall: number): number | undefined {
  const wall = parseDateInput(value, nowWall);
  if (wall === undefined) return undefined;
  const s = value.trim();
  const off = /^\d{4}-\d{1,2}-\d{1,2}[T ].*?(Z|([+-])(\d{2}):?(\d{2})?)$/i.exec(s);
  if (!off || !off[2]) return wall / 1000;
  const mins = Number(off[3]) * 60 + Number(off[4] ?? 0);
  return wall / 1000 - (off[2] === '-' ? -1 : 1) * mins * 60;
}

/**
 * TEC's `is_time` validator (every date argument, on writes and list filters): a number, or a
 * string strtotime() can read, its result taken as a boolean. So the string that IS Unix time 0
 * (`1970-01-01`, `1970-01-01 00:00:00`, `1970-01-01T01:00:00+01:00`) is refused, while the
 * numeric `0` and `1970-01-01 00:00:01` pass.
 */
export function isTimeValue(value: unknown, nowWall: number): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value !== 'string') return false;
  if (/^\s*[+-]?\d+(?:\.\d+)?\s*$/.test(value)) return true;
  const ts = phpTimestamp(value, nowWall);
  return ts !== undefined && ts !== 0;
}
