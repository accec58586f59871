import { daysFromCivil, formatWall, secondsFromFields } from '../model/timezones.ts';
import type { Prop } from './contentline.ts';

/**
 * Typed ICS values: DATE, DATE-TIME (UTC, with TZID, or floating), PERIOD, DURATION and UTC-OFFSET.
 * The value's shape decides its type, not the VALUE parameter: festival feeds write
 * `DTSTART;VALUE=DATE:20110804T120000`, Google wrote `DTSTART;TZID=US/Pacific:20030425` (a date), and
 * `20131210Z` (a date with a Z) exists too. Invalid calendar dates (2017-10-32) are rejected.
 */
export type IcsTime =
  | { kind: 'date'; day: number }
  | { kind: 'utc'; sec: number }
  /** Wall-clock seconds; `tzid` as written (unresolved); none = floating. */
  | { kind: 'local'; sec: number; tzid?: string };

const DT = /^(\d{4})-?(\d{2})-?(\d{2})(?:T(\d{2}):?(\d{2})(?::?(\d{2}))?(?:[.,]\d+)?(Z)?)?(Z)?$/i;

export function parseTime(value: string, tzid?: string): IcsTime | undefined {
  const v = value.trim();
  const compact = compactTime(v, tzid);
  if (compact !== NOT_COMPACT) return compact;
  const m = DT.exec(v);
  if (!m) return undefined;
  if (m[4] === undefined) return timeOf(+m[1], +m[2], +m[3], -1, 0, 0, false, tzid);
  return timeOf(+m[1], +m[2], +m[3], +m[4], +m[5], m[6] ? +m[6] : 0, !!(m[7] || m[8]), tzid);
}

const NOT_COMPACT = null;

/**
 * The basic forms nearly every feed writes (`20250314`, `20250314T200000`, `20250314T200000Z`), read
 * on character codes; DT above reads them the same way, with a match array and eight strings per value
 * (two or three values per VEVENT). NOT_COMPACT for anything else.
 */
function compactTime(v: string, tzid: string | undefined): IcsTime | undefined | typeof NOT_COMPACT {
  const n = v.length;
  if (n !== 8 && n !== 15 && n !== 16) return NOT_COMPACT;
  const y = digits(v, 0, 4);
  const mo = digits(v, 4, 2);
  const d = digits(v, 6, 2);
  if (y < 0 || mo < 0 || d < 0) return NOT_COMPACT;
  if (n === 8) return timeOf(y, mo, d, -1, 0, 0, false, tzid);
  const t = v.charCodeAt(8) | 0x20;
  const hh = digits(v, 9, 2);
  const mi = digits(v, 11, 2);
  const ss = digits(v, 13, 2);
  if (t !== 116 || hh < 0 || mi < 0 || ss < 0) return NOT_COMPACT;
  if (n === 15) return timeOf(y, mo, d, hh, mi, ss, false, tzid);
  return (v.charCodeAt(15) | 0x20) === 122 ? timeOf(y, mo, d, hh, mi, ss, true, tzid) : NOT_COMPACT;
}

/** The number written by `len` ASCII digits at `at`, or -1. */
function digits(s: string, at: number, len: number): number {
  let x = 0;
  for (let i = at; i < at + len; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    x = x * 10 + c;
  }
  return x;
}

/** A date (`hh` -1) or date-time from its fields; undefined for an invalid one (2017-10-32). */
function timeOf(y: number, mo: number, d: number, hh: number, mi: number, ss: number, utc: boolean, tzid: string | undefined): IcsTime | undefined {
  if (hh < 0) {
    const s = secondsFromFields(y, mo, d);
    return s === undefined ? undefined : { kind: 'date', day: daysFromCivil(y, mo, d) };
  }
  const sec = secondsFromFields(y, mo, d, hh, mi, ss);
  if (sec === undefined) return undefined;
  if (utc) return { kind: 'utc', sec };
  // An empty TZID is kept: Exchange writes `TZID:` in the VTIMEZONE and `DTSTART;TZID=:` to match it.
  return tzid !== undefined ? { kind: 'local', sec, tzid } : { kind: 'local', sec };
}

/** The TZID parameter of a property as written (quotes already removed), or undefined. */
export function tzidOf(p: Prop): string | undefined {
  return 'TZID' in p.params ? p.params.TZID : undefined;
}

export function parseTimeProp(p: Prop): IcsTime | undefined {
  return parseTime(p.value, tzidOf(p));
}

/** Comma-separated DATE/DATE-TIME lists (EXDATE, RDATE); invalid or empty items are skipped. */
export function parseTimeList(p: Prop): { times: IcsTime[]; invalid: string[] } {
  const times: IcsTime[] = [];
  const invalid: string[] = [];
  const tz = tzidOf(p);
  for (const raw of p.value.split(',')) {
    const v = raw.trim();
    if (!v) continue;
    const t = parseTime(v, tz);
    if (t) times.push(t);
    else invalid.push(v);
  }
  return { times, invalid };
}

/** Nominal days (calendar days, follow DST) plus exact seconds. */
export interface IcsDuration {
  days: number;
  seconds: number;
}

const DUR = /^([+-])?P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/i;

export function parseDuration(value: string): IcsDuration | undefined {
  const v = value.trim();
  const m = DUR.exec(v);
  if (!m || v === 'P' || /T$/i.test(v)) return undefined;
  const sign = m[1] === '-' ? -1 : 1;
  const days = (m[2] ? +m[2] * 7 : 0) + (m[3] ? +m[3] : 0);
  const seconds = (m[4] ? +m[4] * 3600 : 0) + (m[5] ? +m[5] * 60 : 0) + (m[6] ? +m[6] : 0);
  return { days: sign * days, seconds: sign * seconds };
}

/** RDATE;VALUE=PERIOD items: `start/end` or `start/duration`. */
export interface IcsPeriodItem {
  start: IcsTime;
  end?: IcsTime;
  duration?: IcsDuration;
}

export function parsePeriodList(p: Prop): { items: IcsPeriodItem[]; invalid: string[] } {
  const items: IcsPeriodItem[] = [];
  const invalid: string[] = [];
  const tz = tzidOf(p);
  for (const raw of p.value.split(',')) {
    const v = raw.trim();
    if (!v) continue;
    const slash = v.indexOf('/');
    const start = parseTime(slash < 0 ? v : v.slice(0, slash), tz);
    if (!start) {
      invalid.push(v);
      continue;
    }
    if (slash < 0) {
      items.push({ start });
      continue;
    }
    const rest = v.slice(slash + 1);
    const end = parseTime(rest, tz);
    const duration = end ? undefined : parseDuration(rest);
    if (!end && !duration) invalid.push(v);
    else items.push(end ? { start, end } : { start, duration });
  }
  return { items, invalid };
}

/** `+0100`, `-075258`, `+010000`, and the invalid but common `-0000` (= 0), in seconds. */
export function parseUtcOffset(value: string): number | undefined {
  const m = /^([+-])?(\d{2}):?(\d{2})(?::?(\d{2}))?$/.exec(value.trim());
  if (!m) return undefined;
  const s = +m[2] * 3600 + +m[3] * 60 + (m[4] ? +m[4] : 0);
  return m[1] === '-' ? -s : s;
}

const pad2 = (n: number): string => String(n).padStart(2, '0');

/** Seconds -> UTC-OFFSET as written: `+0100`, `-0330`, and `+004430` when there are seconds. */
export function formatUtcOffset(sec: number): string {
  const a = Math.abs(sec);
  const s = a % 60;
  return `${sec < 0 ? '-' : '+'}${pad2(Math.floor(a / 3600))}${pad2(Math.floor((a % 3600) / 60))}${s ? pad2(s) : ''}`;
}

/** Local (wall-clock) seconds -> a floating DATE-TIME: `20250330T020000`. */
export function formatLocalDateTime(sec: number): string {
  return formatWall(sec).replace(/[-:]/g, '').replace(' ', 'T');
}
