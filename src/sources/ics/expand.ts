import {
  formatDay,
  formatLocalIso,
  formatUtcIso,
  utcToWall,
  wallToUtc,
} from '../../model/timezones.ts';
import type { RawEvent } from './event.ts';
import { expandRule, type Budget, type RRule } from '../../ical/rrule.ts';
import type { IcsDuration, IcsTime } from '../../ical/values.ts';

/**
 * Series expansion: DTSTART + RRULE(s) + RDATE - EXRULE - EXDATE - overridden instances, over a window,
 * with each instance placed in time (wall clock, instant, end) in the series' frame.
 *
 * A frame is how a series' times are read:
 * - `zoned`: DATE-TIME with a TZID (or UTC, zone `UTC`): recurrence runs on that zone's wall clock, so a
 *   09:00 meeting stays at 09:00 across DST; instances are keyed by their UTC instant, which is how UTC
 *   EXDATEs and RECURRENCE-IDs written by other clients still match a local series;
 * - `floating`: DATE-TIME without zone: wall clock; placed in time with the calendar zone (for the
 *   window only), keyed by wall time so the key does not depend on configuration;
 * - `date`: VALUE=DATE: whole days, keyed by date.
 */
const DAY = 86_400;

export interface TimeContext {
  calendarZone: string;
  /** IANA zone for a TZID as written; `atSec` (wall clock) tells which year's rules matter. */
  zoneFor(tzid: string, atSec: number): string;
}

export interface Frame {
  kind: 'date' | 'zoned' | 'floating';
  /** Zone placing the wall clock in time (the calendar zone for floating and date frames). */
  zone: string;
  /** Zone the draft's wall times are written in. */
  outZone: string;
}

export function zoneOfLocal(t: IcsTime & { kind: 'local' }, ctx: TimeContext): string {
  return t.tzid === undefined ? ctx.calendarZone : ctx.zoneFor(t.tzid, t.sec);
}

export function frameOf(t: IcsTime, ctx: TimeContext): Frame {
  if (t.kind === 'date') return { kind: 'date', zone: ctx.calendarZone, outZone: ctx.calendarZone };
  if (t.kind === 'utc') return { kind: 'zoned', zone: 'UTC', outZone: ctx.calendarZone };
  if (t.tzid === undefined) return { kind: 'floating', zone: ctx.calendarZone, outZone: ctx.calendarZone };
  const z = zoneOfLocal(t, ctx);
  return { kind: 'zoned', zone: z, outZone: z };
}

/** The instant of any time value; floating and dates are placed with `floatZone`. */
export function instantOf(t: IcsTime, ctx: TimeContext, floatZone = ctx.calendarZone): number {
  if (t.kind === 'utc') return t.sec;
  if (t.kind === 'date') return wallToUtc(floatZone, t.day * DAY);
  return wallToUtc(t.tzid === undefined ? floatZone : zoneOfLocal(t, ctx), t.sec);
}

/** A time value as wall-clock seconds in a frame (dates of a date frame: midnight of the day). */
export function frameLocal(t: IcsTime, f: Frame, ctx: TimeContext): number {
  if (t.kind === 'date') return t.day * DAY;
  if (f.kind === 'date') {
    // A DATE-TIME where a date is expected: its own wall date (Google writes 00:00Z, Exchange local 00:00).
    return Math.floor(t.sec / DAY) * DAY;
  }
  if (t.kind === 'local' && t.tzid === undefined) return t.sec;
  return utcToWall(f.zone, instantOf(t, ctx, f.zone));
}

/** Key of an instance: UTC instant (zoned), wall time (floating) or date. */
export function keyOfLocal(local: number, f: Frame): string {
  if (f.kind === 'date') return formatDay(Math.floor(local / DAY));
  if (f.kind === 'floating') return formatLocalIso(local);
  return formatUtcIso(wallToUtc(f.zone, local));
}

/** How an EXDATE / RECURRENCE-ID value selects instances of a frame: one key, or every instance of a day. */
export interface Selector {
  key?: string;
  day?: number;
}

export function selectorOf(t: IcsTime, f: Frame, ctx: TimeContext): Selector {
  if (t.kind === 'date') return f.kind === 'date' ? { key: formatDay(t.day) } : { day: t.day };
  if (f.kind === 'date') return { key: formatDay(Math.floor(t.sec / DAY)) };
  if (f.kind === 'floating') return { key: formatLocalIso(frameLocal(t, f, ctx)) };
  return { key: formatUtcIso(instantOf(t, ctx, f.zone)) };
}

/** Length of an instance: whole days (date frames) or nominal days + exact seconds. */
export interface Span {
  days: number;
  seconds: number;
}

/**
 * DTEND/DURATION -> span. Date frames: DTEND exclusive, equal to DTSTART = one day, no end = one day.
 * Timed: DTEND - DTSTART as exact seconds (both placed in time, so a DTEND in another zone or in UTC
 * counts correctly), DURATION days nominal, no end = zero length. End before start -> an error.
 */
export function spanOf(start: IcsTime, end: IcsTime | undefined, dur: IcsDuration | undefined, f: Frame, ctx: TimeContext): Span | { error: string } | undefined {
  if (f.kind === 'date') {
    const s = frameLocal(start, f, ctx) / DAY;
    if (end) {
      let e: number;
      if (end.kind === 'date') e = end.day;
      else {
        const wall = end.kind === 'utc' ? utcToWall(ctx.calendarZone, end.sec) : end.sec;
        const d = Math.floor(wall / DAY);
        e = wall - d * DAY > 0 ? d + 1 : d;
      }
      if (e < s) return { error: `end is before start (DTEND ${formatDay(e)} < DTSTART ${formatDay(s)})` };
      return { days: Math.max(1, e - s), seconds: 0 };
    }
    if (dur) {
      const total = dur.days + Math.ceil(dur.seconds / DAY);
      if (total < 0 || dur.seconds < 0) return { error: 'negative DURATION' };
      return { days: Math.max(1, total), seconds: 0 };
    }
    return undefined;
  }
  if (end) {
    let secs: number;
    if (f.kind === 'floating' && (end.kind === 'date' || (end.kind === 'local' && end.tzid === undefined))) {
      secs = frameLocal(end, f, ctx) - frameLocal(start, f, ctx);
    } else {
      secs = instantOf(end, ctx, f.zone) - instantOf(start, ctx, f.zone);
    }
    if (secs < 0) return { error: `end is before start (DTEND is ${-secs} s before DTSTART)` };
    return { days: 0, seconds: secs };
  }
  if (dur) {
    if (dur.days < 0 || dur.seconds < 0) return { error: 'negative DURATION' };
    return { days: dur.days, seconds: dur.seconds };
  }
  return undefined;
}

export function defaultSpan(f: Frame): Span {
  return f.kind === 'date' ? { days: 1, seconds: 0 } : { days: 0, seconds: 0 };
}

/** One placed instance. `local`/`endLocal` are wall clock in the frame, `utc`/`endUtc` instants. */
export interface Occ {
  local: number;
  utc: number;
  endLocal: number;
  endUtc: number;
  key: string;
  span: Span;
}

/**
 * An Occ whose key is made on first use: only series instances are keyed (identities, exclusions,
 * duplicates), and the single events that are most of a big feed never ask for theirs.
 */
class Placed implements Occ {
  readonly local: number;
  readonly utc: number;
  readonly endLocal: number;
  readonly endUtc: number;
  readonly span: Span;
  private readonly kind: Frame['kind'];
  private madeKey: string | undefined = undefined;

  constructor(local: number, utc: number, endLocal: number, endUtc: number, span: Span, kind: Frame['kind']) {
    this.local = local;
    this.utc = utc;
    this.endLocal = endLocal;
    this.endUtc = endUtc;
    this.span = span;
    this.kind = kind;
  }

  /** keyOfLocal's key; a zoned instance's from the instant already known. */
  get key(): string {
    if (this.madeKey === undefined) {
      const k = this.kind;
      this.madeKey = k === 'zoned' ? formatUtcIso(this.utc) : k === 'date' ? formatDay(Math.floor(this.local / DAY)) : formatLocalIso(this.local);
    }
    return this.madeKey;
  }
}

export function place(local: number, span: Span, f: Frame): Occ {
  if (f.kind === 'date') {
    const endLocal = local + span.days * DAY;
    return new Placed(local, wallToUtc(f.zone, local), endLocal, wallToUtc(f.zone, endLocal), span, f.kind);
  }
  const utc = wallToUtc(f.zone, local);
  if (f.kind === 'floating') {
    const endLocal = local + span.days * DAY + span.seconds;
    return new Placed(local, utc, endLocal, wallToUtc(f.zone, endLocal), span, f.kind);
  }
  const endUtc = span.days ? wallToUtc(f.zone, local + span.days * DAY) + span.seconds : utc + span.seconds;
  return new Placed(local, utc, utcToWall(f.zone, endUtc), endUtc, span, f.kind);
}

/** Instance overlaps [from, to); a zero-length instance counts when it starts inside. */
export function inWindow(o: { utc: number; endUtc: number }, from: number, to: number): boolean {
  return o.utc < to && (o.endUtc > from || (o.endUtc === o.utc && o.utc >= from));
}

export interface SeriesInput {
  event: RawEvent;
  frame: Frame;
  span: Span;
  /** Keys/days of instances replaced by overrides. */
  replaced: Selector[];
  window: { from: number; to: number };
  /** Extra reach around the window (longest THISANDFUTURE shift). */
  reach: number;
  cap: number;
  budget: Budget;
  ctx: TimeContext;
}

export interface SeriesResult {
  occs: Occ[];
  /** More instances than `cap` fell in the window; the first `cap` are kept. */
  truncated: boolean;
  /** The work budget ran out before the window was covered. */
  exhausted: boolean;
  /** Instances placed in time (kept or not): what this series cost, for the per-file cap. */
  produced: number;
  /**
   * No earlier than the start (UTC seconds) of the first instance placed after the window, less
   * `reach`: where a later window's end would take in one more (src/sources/ics/reuse.ts).
   */
  after?: number;
}

/** The earliest `utc - reach` of the instances placed after the window's end (SeriesResult.after). */
function firstAfter(occs: readonly Occ[], inp: SeriesInput): number | undefined {
  const end = inp.window.to + inp.reach;
  let first: number | undefined;
  for (const o of occs) if (o.utc >= end && (first === undefined || o.utc < first)) first = o.utc;
  return first === undefined ? undefined : first - inp.reach;
}

function untilLocalOf(r: RRule, f: Frame, ctx: TimeContext): number | undefined {
  const u = r.until;
  if (!u) return undefined;
  if (u.kind === 'date') return f.kind === 'date' ? u.day * DAY : u.day * DAY + DAY - 1;
  if (u.kind === 'utc') return utcToWall(f.kind === 'zoned' ? f.zone : ctx.calendarZone, u.sec);
  if (u.tzid === undefined) return u.sec;
  return utcToWall(f.kind === 'zoned' ? f.zone : ctx.calendarZone, instantOf(u, ctx));
}

/**
 * A VEVENT without recurrence, exclusions or overrides (most of a big feed): its one instance, kept
 * when in the window, exactly as the general expansion below decides it, without its sets, maps
 * and window bounds in the frame's zone.
 */
function single(inp: SeriesInput): SeriesResult {
  const o = place(frameLocal(inp.event.dtstart!, inp.frame, inp.ctx), inp.span, inp.frame);
  const kept = inWindow(o, inp.window.from - inp.reach, inp.window.to + inp.reach);
  return { occs: kept && inp.cap >= 1 ? [o] : [], truncated: kept && inp.cap < 1, exhausted: !!inp.budget.exhausted, produced: 1, after: kept ? undefined : firstAfter([o], inp) };
}

/** Expand one series (master or orphan with its own rules) over the window. */
export function expandSeries(inp: SeriesInput): SeriesResult {
  const { event: e, frame: f, span, ctx, budget } = inp;
  if (!e.rrules.length && !e.rdates.length && !e.exdates.length && !e.exrules.length && !inp.replaced.length) return single(inp);
  const start = frameLocal(e.dtstart!, f, ctx);
  const winZone = f.kind === 'zoned' ? f.zone : ctx.calendarZone;
  const reach = 2 * DAY + inp.reach + span.days * DAY + span.seconds;
  const horizon = utcToWall(winZone, inp.window.to) + reach;
  const skipBefore = utcToWall(winZone, inp.window.from) - reach;
  const isDate = f.kind === 'date';

  const excluded = new Set<string>();
  const excludedDays = new Set<number>();
  const addSel = (s: Selector): void => {
    if (s.key !== undefined) excluded.add(s.key);
    if (s.day !== undefined) excludedDays.add(s.day);
  };
  for (const x of e.exdates) addSel(selectorOf(x, f, ctx));
  for (const s of inp.replaced) addSel(s);
  for (const xr of e.exrules) {
    for (const l of expandRule(xr, { start, isDate, untilLocal: untilLocalOf(xr, f, ctx), horizon, skipBefore, budget })) excluded.add(keyOfLocal(l, f));
  }
  const isExcluded = (o: Occ): boolean => excluded.has(o.key) || (excludedDays.size > 0 && excludedDays.has(Math.floor(o.local / DAY)));

  const byKey = new Map<string, Occ>();
  const limit = inp.cap + excluded.size + excludedDays.size + 1;
  let inWin = 0;
  let truncated = false;
  let produced = 0;
  const add = (o: Occ): boolean => {
    produced++;
    if (byKey.has(o.key)) return true;
    byKey.set(o.key, o);
    if (inWindow(o, inp.window.from - inp.reach, inp.window.to + inp.reach) && ++inWin > limit) {
      truncated = true;
      return false;
    }
    return true;
  };

  if (e.rrules.length) {
    for (const r of e.rrules) {
      const untilLocal = untilLocalOf(r, f, ctx);
      for (const l of expandRule(r, { start, isDate, untilLocal, horizon, skipBefore, budget })) {
        // Instances long before the window (a COUNT rule must be counted from DTSTART) are not placed.
        if (l < skipBefore && l !== start) continue;
        if (!add(place(l, span, f))) break;
      }
    }
  } else add(place(start, span, f));

  for (const rd of e.rdates) {
    const l = frameLocal(rd.time, f, ctx);
    let sp = span;
    if (rd.end || rd.duration) {
      const s = spanOf(rd.time, rd.end, rd.duration, f, ctx);
      if (s && !('error' in s)) sp = s;
    }
    add(place(l, sp, f));
  }

  let occs = [...byKey.values()].filter((o) => !isExcluded(o)).sort((a, b) => a.local - b.local);
  const kept = occs.filter((o) => inWindow(o, inp.window.from - inp.reach, inp.window.to + inp.reach));
  if (kept.length > inp.cap) truncated = true;
  const after = firstAfter(occs, inp);
  occs = kept.slice(0, inp.cap);
  return { occs, truncated, exhausted: !!budget.exhausted, produced, after };
}
