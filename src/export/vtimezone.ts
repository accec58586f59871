import { tzlib_get_ical_block } from 'timezones-ical-library';
import { civilFromDays, daysFromCivil, formatWall, offsetAt, weekdayOf } from '../model/timezones.ts';

/**
 * VTIMEZONE blocks, one per zone the feed's timed events use.
 *
 * timezones-ical-library (built with vzic from current tzdata) gives compact blocks with yearly
 * RRULEs, the form Outlook and Google read best. Those blocks describe only the zone's CURRENT
 * rules, though: for a window in which the rules changed (São Paulo had DST until 2019, Mexico
 * until 2022) they are wrong, and some names are aliases whose block carries another TZID
 * (`Africa/Accra` → `TZID:Africa/Abidjan`), which would leave our `TZID=` parameters dangling.
 *
 * So every block is checked against the runtime's tzdata (Intl) over the years the events span,
 * one year either side (the range TEC uses): same offset at the start of the range and the same
 * transitions inside it. A block that passes is used with its TZID set to our name; otherwise the
 * block is built from the real transitions in the range (one STANDARD/DAYLIGHT per transition,
 * no RRULE, as TEC does). Either way, every DTSTART/DTEND in the feed resolves to the right instant.
 */

const DAY = 86_400;
// One day: tzdata has no two transitions of a zone within a day of each other in modern times.
const SCAN_STEP = DAY;

export interface ZoneRange {
  /** UTC seconds of the earliest and latest instants the feed uses in this zone. */
  minSec: number;
  maxSec: number;
}

interface Observance {
  kind: 'STANDARD' | 'DAYLIGHT';
  from: number;
  to: number;
  /** DTSTART as local seconds. */
  start: number;
  /** Yearly rule: month 1–12, nth weekday (negative counts from the end), weekday Monday = 0. */
  rule?: { month: number; nth: number; weekday: number };
}

export interface Transition {
  /** UTC seconds. */
  at: number;
  from: number;
  to: number;
}

const WEEKDAYS: Record<string, number> = { MO: 0, TU: 1, WE: 2, TH: 3, FR: 4, SA: 5, SU: 6 };

function parseOffset(s: string): number | undefined {
  const m = /^([+-])(\d{2})(\d{2})(\d{2})?$/.exec(s.trim());
  if (!m) return undefined;
  return (m[1] === '-' ? -1 : 1) * (+m[2] * 3600 + +m[3] * 60 + (m[4] ? +m[4] : 0));
}

function parseLocal(s: string): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})$/.exec(s.trim());
  if (!m) return undefined;
  return daysFromCivil(+m[1], +m[2], +m[3]) * DAY + +m[4] * 3600 + +m[5] * 60 + +m[6];
}

/** Observances of a library block; undefined when it uses anything this checker cannot evaluate. */
function parseObservances(block: string): Observance[] | undefined {
  const out: Observance[] = [];
  let cur: Partial<Observance> & { ok?: boolean } | undefined;
  for (const line of block.split(/\r?\n/)) {
    const m = /^(BEGIN|END):(STANDARD|DAYLIGHT)$/.exec(line);
    if (m?.[1] === 'BEGIN') {
      cur = { kind: m[2] as Observance['kind'] };
      continue;
    }
    if (m?.[1] === 'END') {
      if (!cur || cur.from === undefined || cur.to === undefined || cur.start === undefined) return undefined;
      out.push(cur as Observance);
      cur = undefined;
      continue;
    }
    if (!cur) continue;
    const i = line.indexOf(':');
    const key = line.slice(0, i);
    const value = line.slice(i + 1);
    if (key === 'TZOFFSETFROM') cur.from = parseOffset(value);
    else if (key === 'TZOFFSETTO') cur.to = parseOffset(value);
    else if (key === 'DTSTART') cur.start = parseLocal(value);
    else if (key === 'RRULE') {
      const r = /^FREQ=YEARLY;BYMONTH=(\d{1,2});BYDAY=([+-]?\d)(MO|TU|WE|TH|FR|SA|SU)$/.exec(value);
      if (!r) return undefined;
      cur.rule = { month: +r[1], nth: +r[2], weekday: WEEKDAYS[r[3]] };
    } else if (key === 'RDATE' || key === 'EXDATE') return undefined;
  }
  return out.length ? out : undefined;
}

/** Day number of the nth weekday of a month (nth < 0: from the end). */
function nthWeekday(year: number, month: number, nth: number, weekday: number): number {
  if (nth > 0) {
    const first = daysFromCivil(year, month, 1);
    return first + ((weekday - weekdayOf(first) + 7) % 7) + (nth - 1) * 7;
  }
  const nextMonth = month === 12 ? daysFromCivil(year + 1, 1, 1) : daysFromCivil(year, month + 1, 1);
  const last = nextMonth - 1;
  return last - ((weekdayOf(last) - weekday + 7) % 7) + (nth + 1) * 7;
}

/** Transitions a library block says happen up to `toSec` (all of them, sorted). */
function blockTransitions(obs: Observance[], toSec: number): Transition[] {
  const lastYear = civilFromDays(Math.floor(toSec / DAY)).y + 1;
  const out: Transition[] = [];
  for (const o of obs) {
    if (!o.rule) {
      out.push({ at: o.start - o.from, from: o.from, to: o.to });
      continue;
    }
    const firstYear = civilFromDays(Math.floor(o.start / DAY)).y;
    const timeOfDay = o.start - Math.floor(o.start / DAY) * DAY;
    for (let y = firstYear; y <= lastYear; y++) {
      const local = nthWeekday(y, o.rule.month, o.rule.nth, o.rule.weekday) * DAY + timeOfDay;
      if (local >= o.start) out.push({ at: local - o.from, from: o.from, to: o.to });
    }
  }
  return out.sort((a, b) => a.at - b.at);
}

/** The real transitions of `zone` in (fromSec, toSec], from the runtime's tzdata. */
export function zoneTransitions(zone: string, fromSec: number, toSec: number): Transition[] {
  const out: Transition[] = [];
  let t = fromSec;
  let off = offsetAt(zone, t);
  while (t < toSec) {
    const next = Math.min(t + SCAN_STEP, toSec);
    const nextOff = offsetAt(zone, next);
    if (nextOff !== off) {
      // Binary search for the first second with the new offset.
      let lo = t;
      let hi = next;
      while (hi - lo > 1) {
        const mid = Math.floor((lo + hi) / 2);
        if (offsetAt(zone, mid) === off) lo = mid;
        else hi = mid;
      }
      out.push({ at: hi, from: off, to: nextOff });
      off = nextOff;
    }
    t = next;
  }
  return out;
}

/** Whether a library block gives the same offsets as tzdata over the whole range. */
function blockMatches(obs: Observance[], zone: string, fromSec: number, toSec: number): boolean {
  const predicted = blockTransitions(obs, toSec);
  let offAtStart = predicted.length ? predicted[0].from : obs[0].to;
  for (const tr of predicted) {
    if (tr.at <= fromSec) offAtStart = tr.to;
    else break;
  }
  if (offAtStart !== offsetAt(zone, fromSec)) return false;
  const inRange = predicted.filter((tr) => tr.at > fromSec && tr.at <= toSec && tr.from !== tr.to);
  const real = zoneTransitions(zone, fromSec, toSec);
  if (inRange.length !== real.length) return false;
  return inRange.every((tr, i) => tr.at === real[i].at && tr.to === real[i].to);
}

function formatOffset(sec: number): string {
  const sign = sec < 0 ? '-' : '+';
  const a = Math.abs(sec);
  const s = a % 60;
  return `${sign}${String(Math.floor(a / 3600)).padStart(2, '0')}${String(Math.floor((a % 3600) / 60)).padStart(2, '0')}${s ? String(s).padStart(2, '0') : ''}`;
}

function basicLocal(sec: number): string {
  return formatWall(sec).replace(/[-:]/g, '').replace(' ', 'T');
}

const abbrFormatters = new Map<string, Intl.DateTimeFormat>();

/** A zone abbreviation for TZNAME: the alphabetic one when Intl has it (EST), else tzdata's numeric style (-03). */
function tzName(zone: string, atSec: number, offset: number): string {
  let f = abbrFormatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'short' });
    abbrFormatters.set(zone, f);
  }
  const name = f.formatToParts(new Date(atSec * 1000)).find((p) => p.type === 'timeZoneName')?.value ?? '';
  if (/^[A-Z]{2,6}$/.test(name) && !/^(GMT|UTC)$/.test(name)) return name;
  const o = formatOffset(offset);
  return o.endsWith('00') && o.length === 5 ? o.slice(0, 3) : o;
}

/** Standard offset of a year: the smaller of January's and July's (DST adds, in every zone that has it). */
function standardOffset(zone: string, atSec: number): number {
  const { y } = civilFromDays(Math.floor(atSec / DAY));
  return Math.min(offsetAt(zone, daysFromCivil(y, 1, 1) * DAY), offsetAt(zone, daysFromCivil(y, 7, 1) * DAY));
}

/** A block built from tzdata's real transitions over the range (used when the library block does not fit). */
export function generatedBlock(zone: string, fromSec: number, toSec: number): string {
  const lines = ['BEGIN:VTIMEZONE', `TZID:${zone}`];
  const observance = (at: number, from: number, to: number): void => {
    const kind = to > standardOffset(zone, at) ? 'DAYLIGHT' : 'STANDARD';
    lines.push(
      `BEGIN:${kind}`,
      `TZNAME:${tzName(zone, at, to)}`,
      `TZOFFSETFROM:${formatOffset(from)}`,
      `TZOFFSETTO:${formatOffset(to)}`,
      // A transition's DTSTART is the local time it happens at, read in the offset before it.
      `DTSTART:${basicLocal(at + from)}`,
      `END:${kind}`,
    );
  };
  const initial = offsetAt(zone, fromSec);
  observance(fromSec, initial, initial);
  for (const tr of zoneTransitions(zone, fromSec, toSec)) observance(tr.at, tr.from, tr.to);
  lines.push('END:VTIMEZONE');
  return lines.join('\r\n');
}

/** The range a zone's block is checked/built over: 1 Jan of the year before to 31 Dec of the year after. */
export function blockRange(range: ZoneRange): { fromSec: number; toSec: number } {
  const y0 = civilFromDays(Math.floor(range.minSec / DAY)).y - 1;
  const y1 = civilFromDays(Math.floor(range.maxSec / DAY)).y + 1;
  return { fromSec: daysFromCivil(y0, 1, 1) * DAY, toSec: daysFromCivil(y1 + 1, 1, 1) * DAY - 1 };
}

export interface VtimezoneResult {
  block: string;
  source: 'library' | 'generated';
}

const cache = new Map<string, VtimezoneResult>();

/** The VTIMEZONE (CRLF lines, no trailing CRLF) for `zone`, valid for every instant in `range`. */
export function vtimezone(zone: string, range: ZoneRange): VtimezoneResult {
  const { fromSec, toSec } = blockRange(range);
  const key = `${zone}\u0000${fromSec}\u0000${toSec}`;
  const hit = cache.get(key);
  if (hit) return hit;
  let result: VtimezoneResult | undefined;
  const lib = tzlib_get_ical_block(zone);
  const text = Array.isArray(lib) ? lib[0] : undefined;
  if (text) {
    const obs = parseObservances(text);
    if (obs && blockMatches(obs, zone, fromSec, toSec)) {
      const block = text
        .replace(/\r?\n/g, '\r\n')
        .trim()
        .replace(/^TZID:.*$/m, `TZID:${zone}`)
        .replace(/^X-LIC-LOCATION:.*$/m, `X-LIC-LOCATION:${zone}`);
      result = { block, source: 'library' };
    }
  }
  result ??= { block: generatedBlock(zone, fromSec, toSec), source: 'generated' };
  if (cache.size > 1000) cache.clear();
  cache.set(key, result);
  return result;
}
