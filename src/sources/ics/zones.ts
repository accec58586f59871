import {
  canonicalZone,
  civilFromDays,
  findZoneByOffsets,
  fixedOffsetZone,
  offsetAt,
  resolveZoneName,
  windowsZoneToIana,
} from '../../model/timezones.ts';
import { fixedOffset, offsetSamples, type VTimezoneDef } from '../../ical/vtimezone.ts';

/**
 * Per-file TZID resolution: every TZID an event uses becomes an IANA zone, once (cached).
 *
 * Order, and why:
 * 1. A name the runtime knows as IANA (or a legacy alias of one) wins, even over a VTIMEZONE with the same
 *    id: IANA data is better maintained than the rules a client embedded years ago.
 * 2. Windows ids and Outlook labels map through CLDR; with a VTIMEZONE present, only if the mapped zone
 *    reproduces its offsets (a label is just text, the rules are what the client used).
 * 3. A VTIMEZONE's X-LIC-LOCATION, if IANA.
 * 4. The VTIMEZONE's offsets and transition times in the year of use, matched against IANA zones,
 *    preferring the calendar's X-WR-TIMEZONE and the zones other events of the file use. A VTIMEZONE
 *    without transitions becomes `UTC`/`Etc/GMT±N` unless a preferred zone matches.
 * 5. Anything else (unknown id, no VTIMEZONE) reads as the calendar zone, with a warning.
 */
export interface ZoneResolution {
  zone: string;
  /** How it was found, for reports. */
  how: string;
  /** Set when the result is a guess worth telling the user about. */
  warning?: string;
}

export interface ZoneContext {
  /** The zone floating and UTC times are shown in: X-WR-TIMEZONE, else the file's one VTIMEZONE zone, else the default. */
  calendarZone: string;
  calendarZoneHow: string;
  /** Resolve a TZID as referenced by a property; `atSec` is a wall-clock time of use (its year picks the rules to match). */
  resolve(tzid: string, atSec: number): ZoneResolution;
}

function keyOf(tzid: string): string {
  return tzid.replace(/^"+|"+$/g, '').replace(/\\,/g, ',').trim().toLowerCase();
}

export function buildZoneContext(opts: {
  vtimezones: VTimezoneDef[];
  xWrTimezone?: string;
  defaultTimezone: string;
  /** TZIDs used by events (for preferring zones the file names directly). */
  usedTzids: Iterable<string>;
  /** A representative year (first event) for resolving VTIMEZONE-only zones. */
  refYear: number;
}): ZoneContext {
  const defs = new Map<string, VTimezoneDef>();
  const defsLoose = new Map<string, VTimezoneDef>();
  for (const d of opts.vtimezones) {
    if (!defs.has(d.tzid)) defs.set(d.tzid, d);
    const k = keyOf(d.tzid);
    if (!defsLoose.has(k)) defsLoose.set(k, d);
  }
  const findDef = (tzid: string): VTimezoneDef | undefined => defs.get(tzid) ?? defsLoose.get(keyOf(tzid));

  // Zones named directly in the file, preferred when a custom VTIMEZONE has to be matched by rules.
  const direct: string[] = [];
  const xwr = opts.xWrTimezone ? resolveZoneName(opts.xWrTimezone)?.zone : undefined;
  if (xwr) direct.push(xwr);
  for (const t of opts.usedTzids) {
    const r = resolveZoneName(t);
    if (r && (r.via === 'iana' || r.via === 'alias') && !direct.includes(r.zone)) direct.push(r.zone);
  }

  const cache = new Map<string, ZoneResolution>();
  const byRules = (def: VTimezoneDef, year: number, hint?: string): ZoneResolution | undefined => {
    const samples = offsetSamples(def, year);
    if (!samples.length) return undefined;
    const preferred = hint ? [hint, ...direct] : direct;
    const fixed = fixedOffset(samples);
    if (fixed !== undefined) {
      for (const z of preferred) if (samples.every(([t, o]) => offsetAt(z, t) === o)) return { zone: z, how: `VTIMEZONE offsets (fixed), preferred ${z}` };
      const etc = fixedOffsetZone(fixed);
      if (etc) return { zone: etc, how: 'VTIMEZONE fixed offset' };
    }
    const m = findZoneByOffsets(samples, preferred);
    if (!m) return undefined;
    if (m.misses === 0) return { zone: m.zone, how: `VTIMEZONE rules matched in ${year}` };
    return {
      zone: m.zone,
      how: `VTIMEZONE rules, closest zone in ${year}`,
      warning: `TZID "${def.tzid}": no IANA zone has exactly its rules in ${year}; using ${m.zone} (${m.misses}/${m.samples} sample offsets differ)`,
    };
  };

  const resolveUncached = (tzid: string, year: number): ZoneResolution | undefined => {
    const named = resolveZoneName(tzid);
    if (named && (named.via === 'iana' || named.via === 'alias')) return { zone: named.zone, how: named.via === 'iana' ? 'IANA' : `alias of ${named.zone}` };
    const def = findDef(tzid);
    if (named && !def) return { zone: named.zone, how: named.via === 'windows' ? 'Windows zone name' : 'offset label' };
    if (def) {
      if (named) {
        const samples = offsetSamples(def, year);
        if (!samples.length || samples.every(([t, o]) => offsetAt(named.zone, t) === o)) {
          return { zone: named.zone, how: named.via === 'windows' ? 'Windows zone name (matches VTIMEZONE)' : 'offset label (matches VTIMEZONE)' };
        }
      }
      const lic = def.licLocation ? canonicalZone(def.licLocation) : undefined;
      if (lic) return { zone: lic, how: 'X-LIC-LOCATION' };
      const hint = windowsZoneToIana(tzid);
      const r = byRules(def, year, hint);
      if (r) return r;
      if (named) return { zone: named.zone, how: 'name (VTIMEZONE unusable)' };
    }
    return undefined;
  };

  let calendarZone = resolveZoneName(opts.defaultTimezone)?.zone ?? 'UTC';
  let calendarZoneHow = 'default';
  const xwrResolved = opts.xWrTimezone ? (xwr ?? resolveUncached(opts.xWrTimezone, opts.refYear)?.zone) : undefined;
  if (xwrResolved) {
    calendarZone = xwrResolved;
    calendarZoneHow = 'X-WR-TIMEZONE';
  } else {
    const zones = new Set<string>();
    for (const d of opts.vtimezones) {
      const r = resolveUncached(d.tzid, opts.refYear);
      zones.add(r ? r.zone : `?${d.tzid}`);
    }
    if (zones.size === 1) {
      const z = [...zones][0];
      if (!z.startsWith('?')) {
        calendarZone = z;
        calendarZoneHow = 'the only VTIMEZONE';
      }
    }
  }

  return {
    calendarZone,
    calendarZoneHow,
    resolve(tzid: string, atSec: number): ZoneResolution {
      let hit = cache.get(tzid);
      if (hit === undefined) {
        hit = resolveUncached(tzid, civilFromDays(Math.floor(atSec / 86_400)).y) ?? {
          zone: calendarZone,
          how: 'unknown TZID',
          warning: `unknown TZID "${tzid}" (no VTIMEZONE, not IANA or Windows): times read in ${calendarZone}`,
        };
        cache.set(tzid, hit);
      }
      return hit;
    },
  };
}
