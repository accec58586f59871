import { civilFromDays, daysFromCivil, daysInMonth, isLeapYear, weekdayOf } from '../model/timezones.ts';
import { parseTime, type IcsTime } from './values.ts';

/**
 * RRULE parsing and expansion (RFC 5545 3.3.10 / 3.8.5.3), on wall-clock seconds.
 *
 * Why our own engine rather than node-ical's (rrule-temporal) or ical.js's RecurIterator: both loop
 * internally until the next match, so a rule that can never (or very rarely) match -
 * `FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=30`, or an unbounded SECONDLY rule started years before the window -
 * blocks the event loop with no way to stop it from outside. Here every period examined costs one unit of
 * a caller-supplied budget, periods before the window are skipped arithmetically when COUNT does not force
 * counting from DTSTART, and expansion stops at the window's end. The algorithm follows python-dateutil's
 * (period by period: candidate days filtered by the BYxxx parts, times per day, BYSETPOS per period).
 *
 * Expansion works on floating wall time (RFC: recurrence is evaluated in the DTSTART's zone); the caller
 * converts each result to an instant in the series' zone.
 */
export type Freq = 'YEARLY' | 'MONTHLY' | 'WEEKLY' | 'DAILY' | 'HOURLY' | 'MINUTELY' | 'SECONDLY';
const RANK: Record<Freq, number> = { SECONDLY: 0, MINUTELY: 1, HOURLY: 2, DAILY: 3, WEEKLY: 4, MONTHLY: 5, YEARLY: 6 };
const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];
const DAY = 86_400;
/** Candidate instances one period (a year, month, week or day) may expand to before BYSETPOS. */
const MAX_PERIOD_CANDIDATES = 100_000;

export interface ByDay {
  /** 0 = every such weekday in the period; +n / -n = the n-th from the start / end. */
  n: number;
  /** Monday = 0 ... Sunday = 6. */
  wd: number;
}

export interface RRule {
  freq: Freq;
  interval: number;
  count?: number;
  until?: IcsTime;
  bysecond?: number[];
  byminute?: number[];
  byhour?: number[];
  byday?: ByDay[];
  bymonthday?: number[];
  byyearday?: number[];
  byweekno?: number[];
  bymonth?: number[];
  bysetpos?: number[];
  wkst: number;
}

function intList(v: string, min: number, max: number, allowNegative: boolean): number[] | undefined {
  const out: number[] = [];
  for (const s of v.split(',')) {
    if (!/^[+-]?\d+$/.test(s.trim())) return undefined;
    const n = parseInt(s, 10);
    const abs = Math.abs(n);
    if ((n < 0 && !allowNegative) || abs < min || abs > max) return undefined;
    out.push(n);
  }
  return out.length ? [...new Set(out)] : undefined;
}

type RuleDraft = Partial<RRule> & { wkst: number; interval: number };
/** Reads one `KEY=value` part into the rule; calls `bad` when the value is invalid. */
type PartReader = (r: RuleDraft, val: string, bad: () => void, problems: string[]) => void;

const positive = (val: string): number => (/^\d+$/.test(val) ? parseInt(val, 10) : NaN);

function readByDay(r: RuleDraft, val: string, _bad: () => void, problems: string[]): void {
  const days: ByDay[] = [];
  for (const s of val.split(',')) {
    const m = /^([+-]?\d{1,2})?(MO|TU|WE|TH|FR|SA|SU)$/i.exec(s.trim());
    const n = m?.[1] ? parseInt(m[1], 10) : 0;
    if (!m || Math.abs(n) > 53) {
      problems.push(`invalid BYDAY item ${s}`);
      continue;
    }
    days.push({ n, wd: WEEKDAYS.indexOf(m[2].toUpperCase()) });
  }
  if (days.length) r.byday = days;
}

// An invalid BYxxx list leaves the part unset (a later valid one of the same name still counts).
const PARTS: Record<string, PartReader> = {
  FREQ: (r, val, bad) => {
    const f = val.toUpperCase();
    if (f in RANK) r.freq = f as Freq;
    else bad();
  },
  INTERVAL: (r, val, bad) => {
    const n = positive(val);
    if (n >= 1) r.interval = n;
    else bad();
  },
  COUNT: (r, val, bad) => {
    const n = positive(val);
    if (n >= 1) r.count = n;
    else bad();
  },
  UNTIL: (r, val, bad) => {
    const t = parseTime(val);
    if (t) r.until = t;
    else bad();
  },
  WKST: (r, val, bad) => {
    const i = WEEKDAYS.indexOf(val.toUpperCase());
    if (i >= 0) r.wkst = i;
    else bad();
  },
  BYDAY: readByDay,
  BYSECOND: (r, val, bad) => void ((r.bysecond = intList(val, 0, 60, false)) ?? bad()),
  BYMINUTE: (r, val, bad) => void ((r.byminute = intList(val, 0, 59, false)) ?? bad()),
  BYHOUR: (r, val, bad) => void ((r.byhour = intList(val, 0, 23, false)) ?? bad()),
  BYMONTHDAY: (r, val, bad) => void ((r.bymonthday = intList(val, 1, 31, true)) ?? bad()),
  BYYEARDAY: (r, val, bad) => void ((r.byyearday = intList(val, 1, 366, true)) ?? bad()),
  BYWEEKNO: (r, val, bad) => void ((r.byweekno = intList(val, 1, 53, true)) ?? bad()),
  BYMONTH: (r, val, bad) => void ((r.bymonth = intList(val, 1, 12, false)) ?? bad()),
  BYSETPOS: (r, val, bad) => void ((r.bysetpos = intList(val, 1, 366, true)) ?? bad()),
};

/**
 * Parse an RRULE value. Junk parts (`RRULE:AnythingRandom;FREQ=...`, unknown keys, out-of-range values)
 * are skipped and reported in `problems`; without a valid FREQ there is no rule.
 */
export function parseRRule(value: string): { rule?: RRule; problems: string[] } {
  const problems: string[] = [];
  const v = value.trim().replace(/^(?:RRULE:)+/i, '');
  const r: RuleDraft = { wkst: 0, interval: 1 };
  for (const part of v.split(';')) {
    if (!part.trim()) continue;
    const eq = part.indexOf('=');
    if (eq < 0) {
      problems.push(`ignored "${part}"`);
      continue;
    }
    const key = part.slice(0, eq).trim().toUpperCase();
    const val = part.slice(eq + 1).trim();
    const read = Object.hasOwn(PARTS, key) ? PARTS[key] : undefined;
    if (!read) problems.push(`ignored ${key}`);
    else read(r, val, () => void problems.push(`invalid ${key}=${val}`), problems);
  }
  if (!r.freq) {
    problems.push('no valid FREQ');
    return { problems };
  }
  return { rule: r as RRule, problems };
}

/** Shared, mutable work allowance: one unit per period or candidate day examined. */
export interface Budget {
  remaining: number;
  exhausted?: boolean;
}

export interface ExpandOptions {
  /** DTSTART as wall-clock seconds (for all-day series: day * 86400). */
  start: number;
  /** All-day series: every instance is a whole day, BYHOUR/BYMINUTE/BYSECOND are ignored. */
  isDate: boolean;
  /** Inclusive UNTIL bound, already converted to the series' wall clock. */
  untilLocal?: number;
  /** Stop once instances pass this wall-clock time. */
  horizon: number;
  /** Instances before this may be skipped (only used when the rule has no COUNT). */
  skipBefore?: number;
  budget: Budget;
}

/** Week number (per WKST, week 1 = the first with at least 4 days in the year) -> start day of week 1. */
function week1Start(y: number, wkst: number): number {
  const jan1 = daysFromCivil(y, 1, 1);
  const off = (weekdayOf(jan1) - wkst + 7) % 7;
  return off <= 3 ? jan1 - off : jan1 + 7 - off;
}

function weekNumberMatches(day: number, y: number, wkst: number, weeks: number[]): boolean {
  let wy = y;
  let s = week1Start(y, wkst);
  if (day < s) {
    wy = y - 1;
    s = week1Start(wy, wkst);
  } else {
    const next = week1Start(y + 1, wkst);
    if (day >= next) {
      wy = y + 1;
      s = next;
    }
  }
  const week = Math.floor((day - s) / 7) + 1;
  const total = Math.round((week1Start(wy + 1, wkst) - s) / 7);
  return weeks.some((n) => (n > 0 ? week === n : week === total + 1 + n));
}

interface Filters {
  bymonth?: Set<number>;
  bymonthday?: number[];
  byyearday?: number[];
  byweekno?: number[];
  /** Plain weekdays (no ordinal, or ordinals that do not apply to this FREQ). */
  weekdays?: Set<number>;
  /** Ordinal weekdays, relative to the month (MONTHLY, or YEARLY with BYMONTH) or the year. */
  nth?: ByDay[];
  nthInMonth: boolean;
  wkst: number;
}

function dayMatches(day: number, f: Filters): boolean {
  // A plain weekday list (every WEEKLY rule has one) turns most days down without their date, and
  // is often the only filter.
  if (f.weekdays && !f.nth && !f.weekdays.has(weekdayOf(day))) return false;
  if (!f.bymonth && !f.nth && !f.bymonthday && !f.byyearday && !f.byweekno) return true;
  const { y, m, d } = civilFromDays(day);
  if (f.bymonth && !f.bymonth.has(m)) return false;
  const wd = weekdayOf(day);
  if (f.weekdays || f.nth) {
    let ok = f.weekdays?.has(wd) ?? false;
    if (!ok && f.nth) {
      let pos: number;
      let len: number;
      if (f.nthInMonth) {
        pos = d;
        len = daysInMonth(y, m);
      } else {
        pos = day - daysFromCivil(y, 1, 1) + 1;
        len = isLeapYear(y) ? 366 : 365;
      }
      const fromStart = Math.floor((pos - 1) / 7) + 1;
      const fromEnd = -(Math.floor((len - pos) / 7) + 1);
      for (const b of f.nth) {
        if (b.wd === wd && (b.n === fromStart || b.n === fromEnd)) {
          ok = true;
          break;
        }
      }
    }
    if (!ok) return false;
  }
  if (f.bymonthday) {
    const ml = daysInMonth(y, m);
    if (!f.bymonthday.some((n) => (n > 0 ? d === n : d === ml + 1 + n))) return false;
  }
  if (f.byyearday) {
    const yd = day - daysFromCivil(y, 1, 1) + 1;
    const yl = isLeapYear(y) ? 366 : 365;
    if (!f.byyearday.some((n) => (n > 0 ? yd === n : yd === yl + 1 + n))) return false;
  }
  if (f.byweekno && !weekNumberMatches(day, y, f.wkst, f.byweekno)) return false;
  return true;
}

function product(hours: number[], minutes: number[], seconds: number[]): number[] {
  const out: number[] = [];
  for (const h of hours) for (const mi of minutes) for (const s of seconds) out.push(h * 3600 + mi * 60 + s);
  return [...new Set(out)].sort((a, b) => a - b);
}

function applySetPos(cands: number[], setpos: number[] | undefined): number[] {
  if (!setpos || cands.length === 0) return cands;
  const out = new Set<number>();
  for (const p of setpos) {
    const i = p > 0 ? p - 1 : cands.length + p;
    if (i >= 0 && i < cands.length) out.add(cands[i]);
  }
  return [...out].sort((a, b) => a - b);
}

/** A rule made ready to expand: its filters, its times of day and the counters expansion shares. */
interface Plan {
  rule: RRule;
  /** DTSTART, wall-clock seconds. */
  start: number;
  startDay: number;
  /** DTSTART's time of day, seconds. */
  tod: number;
  /** Instances after this are not produced (UNTIL or the horizon). */
  stopAt: number;
  /** Periods before this may be skipped without examining them (-Infinity when COUNT needs them all). */
  skip: number;
  f: Filters;
  hours: number[];
  minutes: number[];
  seconds: number[];
  budget: Budget;
  /** Instances COUNT still allows. */
  left: number;
}

/**
 * The BYxxx filters with RFC 5545's defaults from DTSTART: a YEARLY rule without day parts recurs on
 * DTSTART's month and day, a MONTHLY one on its day of the month, a WEEKLY one on its weekday.
 */
function filtersOf(rule: RRule, startDay: number): Filters {
  const { m: m0, d: d0 } = civilFromDays(startDay);
  let bymonth = rule.bymonth;
  let bymonthday = rule.bymonthday;
  let byday = rule.byday;
  if (!rule.byweekno && !rule.byyearday && !rule.bymonthday && !rule.byday) {
    if (rule.freq === 'YEARLY') {
      bymonth ??= [m0];
      bymonthday = [d0];
    } else if (rule.freq === 'MONTHLY') bymonthday = [d0];
    else if (rule.freq === 'WEEKLY') byday = [{ n: 0, wd: weekdayOf(startDay) }];
  }
  const ordinalsApply = rule.freq === 'MONTHLY' || (rule.freq === 'YEARLY' && !rule.byweekno);
  const plain = byday?.filter((b) => b.n === 0 || !ordinalsApply).map((b) => b.wd);
  const nth = ordinalsApply ? byday?.filter((b) => b.n !== 0) : undefined;
  return {
    bymonth: bymonth ? new Set(bymonth) : undefined,
    bymonthday,
    byyearday: rule.byyearday,
    byweekno: rule.freq === 'YEARLY' ? rule.byweekno : undefined,
    weekdays: plain?.length ? new Set(plain) : undefined,
    nth: nth?.length ? nth : undefined,
    nthInMonth: rule.freq === 'MONTHLY' || !!bymonth,
    wkst: rule.wkst,
  };
}

function planOf(rule: RRule, o: ExpandOptions, left: number): Plan {
  const { start, isDate } = o;
  const startDay = Math.floor(start / DAY);
  const tod = start - startDay * DAY;
  return {
    rule,
    start,
    startDay,
    tod,
    stopAt: Math.min(o.untilLocal ?? Infinity, o.horizon),
    skip: rule.count === undefined && o.skipBefore !== undefined ? o.skipBefore - 2 * DAY : -Infinity,
    f: filtersOf(rule, startDay),
    hours: isDate ? [0] : (rule.byhour ?? [Math.floor(tod / 3600)]),
    minutes: isDate ? [0] : (rule.byminute ?? [Math.floor((tod % 3600) / 60)]),
    seconds: isDate ? [0] : (rule.bysecond ?? [tod % 60]),
    budget: o.budget,
    left,
  };
}

/** Yields the candidates after DTSTART, in order; returns true once the rule is done (UNTIL, horizon, COUNT). */
function* emitCandidates(cands: number[], p: Plan): Generator<number, boolean> {
  for (const c of cands) {
    if (c > p.stopAt) return true;
    if (c <= p.start) continue;
    yield c;
    if (--p.left <= 0) return true;
  }
  return false;
}

/**
 * Wall-clock instances of a rule, ascending: DTSTART first (RFC 5545: it is always the first instance
 * and counts toward COUNT even when the rule would not produce it), then every rule instance after it,
 * until COUNT, UNTIL, the horizon or the budget ends it. Sets `budget.exhausted` when the budget ran out.
 */
export function* expandRule(rule: RRule, o: ExpandOptions): Generator<number> {
  yield o.start;
  const left = (rule.count ?? Infinity) - 1;
  if (left <= 0) return;
  const p = planOf(rule, o, left);
  if (RANK[rule.freq] >= RANK.DAILY) yield* byPeriod(p);
  else yield* bySubDailyUnit(p);
}

/** Period index of YEARLY (years), MONTHLY (months since year 0), WEEKLY (week start day) and DAILY (day). */
interface Cursor {
  y: number;
  mIdx: number;
  wk: number;
  dd: number;
}

/** DTSTART's period, moved ahead by whole intervals to the period holding `skip` when it may be skipped to. */
function firstPeriod(p: Plan): Cursor {
  const { rule, startDay } = p;
  const interval = rule.interval;
  const { y: y0, m: m0 } = civilFromDays(startDay);
  const wk0 = startDay - ((weekdayOf(startDay) - rule.wkst + 7) % 7);
  const c: Cursor = { y: y0, mIdx: y0 * 12 + (m0 - 1), wk: wk0, dd: startDay };
  if (p.skip > p.start) {
    const skipDay = Math.floor(p.skip / DAY);
    const sc = civilFromDays(skipDay);
    if (rule.freq === 'YEARLY') c.y = y0 + Math.max(0, Math.floor((sc.y - y0) / interval)) * interval;
    else if (rule.freq === 'MONTHLY') c.mIdx += Math.max(0, Math.floor((sc.y * 12 + sc.m - 1 - c.mIdx) / interval)) * interval;
    else if (rule.freq === 'WEEKLY') c.wk += Math.max(0, Math.floor((skipDay - wk0) / (7 * interval))) * 7 * interval;
    else c.dd += Math.max(0, Math.floor((skipDay - startDay) / interval)) * interval;
  }
  return c;
}

function nextPeriod(rule: RRule, c: Cursor): void {
  if (rule.freq === 'YEARLY') c.y += rule.interval;
  else if (rule.freq === 'MONTHLY') c.mIdx += rule.interval;
  else if (rule.freq === 'WEEKLY') c.wk += 7 * rule.interval;
  else c.dd += rule.interval;
}

/** First and last day of the cursor's period; undefined past year 9999. */
function periodDays(freq: Freq, c: Cursor): [first: number, last: number] | undefined {
  if (freq === 'YEARLY') return c.y > 9999 ? undefined : [daysFromCivil(c.y, 1, 1), daysFromCivil(c.y, 12, 31)];
  if (freq === 'MONTHLY') {
    const yy = Math.floor(c.mIdx / 12);
    const mm = (c.mIdx % 12) + 1;
    if (yy > 9999) return undefined;
    const first = daysFromCivil(yy, mm, 1);
    return [first, first + daysInMonth(yy, mm) - 1];
  }
  if (freq === 'WEEKLY') return [c.wk, c.wk + 6];
  return [c.dd, c.dd];
}

/** Every instance of one period before BYSETPOS, ascending; undefined when the budget ran out. */
function periodCandidates(p: Plan, c: Cursor, [first, last]: [number, number], times: number[]): number[] | undefined {
  const { rule, f } = p;
  const cands: number[] = [];
  // Narrow YEARLY periods to the listed months before testing every day.
  if (rule.freq === 'YEARLY' && f.bymonth && !rule.byweekno && !rule.byyearday) {
    for (const mm of [...f.bymonth].sort((a, b) => a - b)) {
      const a = daysFromCivil(c.y, mm, 1);
      if (!rangeCandidates(p, a, a + daysInMonth(c.y, mm) - 1, times, cands)) return undefined;
    }
    return cands;
  }
  // One range (every other period): no list of ranges made per week of a WEEKLY series.
  return rangeCandidates(p, first, last, times, cands) ? cands : undefined;
}

/** The instances of days a..b into `cands`; false when the budget ran out. */
function rangeCandidates(p: Plan, a: number, b: number, times: number[], cands: number[]): boolean {
  const { f, budget } = p;
  budget.remaining -= b - a;
  for (let day = a; day <= b; day++) {
    if (!dayMatches(day, f)) continue;
    // Candidates are work too (every BYxxx list at once makes 31 million per year): counted, and a
    // period may not hold more than MAX_PERIOD_CANDIDATES of them.
    budget.remaining -= times.length;
    if (budget.remaining < 0 || cands.length + times.length > MAX_PERIOD_CANDIDATES) {
      budget.exhausted = true;
      return false;
    }
    for (const t of times) cands.push(day * DAY + t);
  }
  return true;
}

/** YEARLY / MONTHLY / WEEKLY / DAILY: period by period, candidate days filtered, times per day, BYSETPOS. */
function* byPeriod(p: Plan): Generator<number> {
  const { rule, budget } = p;
  const times = product(p.hours, p.minutes, p.seconds);
  const cursor = firstPeriod(p);
  for (;;) {
    if (--budget.remaining < 0) {
      budget.exhausted = true;
      return;
    }
    const days = periodDays(rule.freq, cursor);
    if (!days || days[0] * DAY > p.stopAt) return;
    const cands = periodCandidates(p, cursor, days, times);
    if (!cands) return;
    if (yield* emitCandidates(rule.bysetpos ? applySetPos(cands, rule.bysetpos) : cands, p)) return;
    nextPeriod(rule, cursor);
  }
}

/** What limits a sub-daily rule within its unit: BYHOUR etc. limit instead of expand. */
interface SubDaily {
  /** Seconds of one unit: an hour, a minute or a second. */
  unit: number;
  hourSet?: Set<number>;
  minuteSet?: Set<number>;
  secondSet?: Set<number>;
  /** Offsets within a unit that are instances (BYMINUTE/BYSECOND below an HOURLY rule, ...). */
  inner: number[];
}

function subDailyOf(p: Plan): SubDaily {
  const { rule, tod } = p;
  const rank = RANK[rule.freq];
  const mi0 = Math.floor((tod % 3600) / 60);
  const s0 = tod % 60;
  return {
    unit: rule.freq === 'HOURLY' ? 3600 : rule.freq === 'MINUTELY' ? 60 : 1,
    hourSet: rule.byhour ? new Set(rule.byhour) : undefined,
    minuteSet: rank <= RANK.MINUTELY && rule.byminute ? new Set(rule.byminute) : undefined,
    secondSet: rank === RANK.SECONDLY && rule.bysecond ? new Set(rule.bysecond) : undefined,
    inner: rule.freq === 'HOURLY' ? product([0], rule.byminute ?? [mi0], rule.bysecond ?? [s0]) : rule.freq === 'MINUTELY' ? product([0], [0], rule.bysecond ?? [s0]) : [0],
  };
}

/**
 * Where the next possible instance lies when the unit starting at `t` is filtered out (the next day,
 * hour, minute or unit); undefined when the unit matches.
 */
function rejectedUntil(t: number, p: Plan, s: SubDaily, dayOk: Map<number, boolean>): number | undefined {
  const day = Math.floor(t / DAY);
  let ok = dayOk.get(day);
  if (ok === undefined) {
    ok = dayMatches(day, p.f);
    if (dayOk.size > 1000) dayOk.clear();
    dayOk.set(day, ok);
  }
  if (!ok) return (day + 1) * DAY;
  const inDay = t - day * DAY;
  if (s.hourSet && !s.hourSet.has(Math.floor(inDay / 3600))) return t - (inDay % 3600) + 3600;
  if (s.minuteSet && !s.minuteSet.has(Math.floor((inDay % 3600) / 60))) return t - (inDay % 60) + 60;
  // Only SECONDLY rules have a second set: the next unit.
  if (s.secondSet && !s.secondSet.has(inDay % 60)) return t + s.unit;
  return undefined;
}

/** HOURLY / MINUTELY / SECONDLY: unit by unit from DTSTART's, jumping over filtered days, hours and minutes. */
function* bySubDailyUnit(p: Plan): Generator<number> {
  const { rule, budget, start, tod } = p;
  const s = subDailyOf(p);
  const { unit, inner } = s;
  const step = rule.interval;
  const base = start - (rule.freq === 'HOURLY' ? (tod % 3600) : rule.freq === 'MINUTELY' ? (tod % 60) : 0);
  let u = Math.floor(base / unit);
  if (p.skip > start) u += Math.max(0, Math.floor((Math.floor(p.skip / unit) - u) / step)) * step;
  const dayOk = new Map<number, boolean>();
  for (;;) {
    if (--budget.remaining < 0) {
      budget.exhausted = true;
      return;
    }
    const t = u * unit;
    if (t > p.stopAt) return;
    const next = rejectedUntil(t, p, s, dayOk);
    if (next !== undefined) {
      u += Math.max(1, Math.ceil((next / unit - u) / step)) * step;
      continue;
    }
    if (inner.length === 1 && !rule.bysetpos) {
      // The common case, without an array per unit.
      const c = t + inner[0];
      if (c > p.stopAt) return;
      if (c > start) {
        yield c;
        if (--p.left <= 0) return;
      }
    } else if (yield* emitCandidates(applySetPos(inner.map((x) => t + x), rule.bysetpos), p)) return;
    u += step;
  }
}
