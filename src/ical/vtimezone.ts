import { daysFromCivil, type OffsetSample } from '../model/timezones.ts';
import type { Component } from './parse.ts';
import { expandRule, parseRRule, type Budget, type RRule } from './rrule.ts';
import { unescapeText } from './text.ts';
import { parseTime, parseUtcOffset } from './values.ts';

/**
 * VTIMEZONE blocks as data: their observances, and the UTC offsets they produce around a given year.
 * We never convert event times with these rules directly (drafts need an IANA zone); the offsets are
 * matched against IANA zones instead (see `findZoneByOffsets`).
 */
export interface Observance {
  kind: 'STANDARD' | 'DAYLIGHT';
  /** Onset as wall-clock seconds in the offset in force before it (TZOFFSETFROM). */
  startLocal: number;
  from: number;
  to: number;
  rule?: RRule;
  rdates: number[];
}

export interface VTimezoneDef {
  /** TZID as written, TEXT-unescaped (`Kuala Lumpur\, Singapore` -> `Kuala Lumpur, Singapore`). */
  tzid: string;
  observances: Observance[];
  /** Google and Lightning name the IANA zone here. */
  licLocation?: string;
  line: number;
}

/** One def per TZID (a broken WordPress export puts two TZIDs in one block; each gets the same rules). */
export function readVTimezone(c: Component): VTimezoneDef[] {
  const tzids = c.props.filter((p) => p.name === 'TZID').map((p) => unescapeText(p.value));
  const lic = c.props.find((p) => p.name === 'X-LIC-LOCATION')?.value.trim();
  const observances: Observance[] = [];
  for (const ob of c.children) {
    if (ob.name !== 'STANDARD' && ob.name !== 'DAYLIGHT') continue;
    let start: number | undefined;
    let from: number | undefined;
    let to: number | undefined;
    let rule: RRule | undefined;
    const rdates: number[] = [];
    for (const p of ob.props) {
      if (p.name === 'DTSTART') {
        const t = parseTime(p.value);
        if (t) start = t.kind === 'date' ? t.day * 86_400 : t.sec;
      } else if (p.name === 'TZOFFSETFROM') from = parseUtcOffset(p.value);
      else if (p.name === 'TZOFFSETTO') to = parseUtcOffset(p.value);
      else if (p.name === 'RRULE') rule = parseRRule(p.value).rule;
      else if (p.name === 'RDATE') {
        for (const v of p.value.split(',')) {
          const t = parseTime(v.split('/')[0]);
          if (t) rdates.push(t.kind === 'date' ? t.day * 86_400 : t.sec);
        }
      }
    }
    if (to === undefined) continue;
    observances.push({ kind: ob.name, startLocal: start ?? 0, from: from ?? to, to, rule, rdates });
  }
  const base = { observances, licLocation: lic || undefined, line: c.line };
  return (tzids.length ? tzids : ['']).map((tzid) => ({ tzid, ...base }));
}

/** A change of offset: the UTC instant it happens at, and the offsets before and after it (seconds). */
export interface Onset {
  at: number;
  from: number;
  to: number;
}

/**
 * Every onset of the block's observances from `fromYear` to `toYear` (rule instances outside those years
 * may be skipped; one-off observances and RDATEs are all listed), sorted by instant.
 */
export function onsets(def: VTimezoneDef, fromYear: number, toYear: number): Onset[] {
  const lo = daysFromCivil(fromYear, 1, 1) * 86_400;
  const hi = daysFromCivil(toYear + 1, 1, 1) * 86_400;
  const out: Onset[] = [];
  for (const ob of def.observances) {
    const push = (local: number): void => {
      out.push({ at: local - ob.from, from: ob.from, to: ob.to });
    };
    if (ob.rule) {
      // UNTIL inside VTIMEZONE rules is UTC (Thunderbird writes it floating); either way compare as wall time.
      const u = ob.rule.until;
      const untilLocal = u === undefined ? undefined : u.kind === 'date' ? u.day * 86_400 + 86_399 : u.kind === 'utc' ? u.sec + ob.from : u.sec;
      const budget: Budget = { remaining: 100_000 };
      for (const t of expandRule(ob.rule, { start: ob.startLocal, isDate: false, untilLocal, horizon: hi, skipBefore: lo, budget })) push(t);
    } else push(ob.startLocal);
    for (const r of ob.rdates) push(r);
  }
  return out.sort((a, b) => a.at - b.at);
}

/** Offset function of a VTIMEZONE over a range of years (sorted onsets, binary-searched). */
export function offsetFunction(def: VTimezoneDef, fromYear: number, toYear: number): ((utcSec: number) => number) | undefined {
  if (!def.observances.length) return undefined;
  const list = onsets(def, fromYear, toYear);
  if (!list.length) return undefined;
  return (t: number): number => {
    let lo = 0;
    let hi = list.length - 1;
    if (t < list[0].at) return list[0].from;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (list[mid].at <= t) lo = mid;
      else hi = mid - 1;
    }
    return list[lo].to;
  };
}

/**
 * Offsets a VTIMEZONE gives in `year`: twice a month at noon UTC, plus one hour either side of every
 * transition (so zones with the same offsets but other switch dates or hours do not match).
 */
export function offsetSamples(def: VTimezoneDef, year: number): OffsetSample[] {
  const f = offsetFunction(def, year - 1, year + 1);
  if (!f) return [];
  const out: OffsetSample[] = [];
  for (let m = 1; m <= 12; m++) {
    for (const d of [1, 15]) {
      const t = daysFromCivil(year, m, d) * 86_400 + 43_200;
      out.push([t, f(t)]);
    }
  }
  for (const o of onsets(def, year, year)) {
    if (o.from === o.to) continue;
    if (o.at < daysFromCivil(year, 1, 1) * 86_400 || o.at >= daysFromCivil(year + 1, 1, 1) * 86_400) continue;
    out.push([o.at - 3600, f(o.at - 3600)], [o.at + 3600, f(o.at + 3600)]);
  }
  return out;
}

/** The single offset of a zone without transitions in `year`, else undefined. */
export function fixedOffset(samples: readonly OffsetSample[]): number | undefined {
  if (!samples.length) return undefined;
  const o = samples[0][1];
  return samples.every((s) => s[1] === o) ? o : undefined;
}
