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

export interface ZoneContextOptions {
  vtimezones: VTimezoneDef[];
  xWrTimezone?: string;
  defaultTimezone: string;
  /** TZIDs used by events (for preferring zones the file names directly). */
  usedTzids: Iterable<string>;
  /** A representative year (first event) for resolving VTIMEZONE-only zones. */
  refYear: number;
}

/** Zones named directly in the file (X-WR-TIMEZONE first), preferred when a custom VTIMEZONE has to be matched by rules. */
function directZones(xwr: string | undefined, usedTzids: Iterable<string>): string[] {
  const direct: string[] = [];
  if (xwr) direct.push(xwr);
  for (const t of usedTzids) {
    const r = resolveZoneName(t);
    if (r && (r.via === 'iana' || r.via === 'alias') && !direct.includes(r.zone)) direct.push(r.zone);
  }
  return direct;
}

/** Steps 1-4 of the order above, for one TZID in one year (uncached). */
class TzidResolver {
  private readonly defs = new Map<string, VTimezoneDef>();
  private readonly defsLoose = new Map<string, VTimezoneDef>();
  private readonly direct: string[];

  constructor(vtimezones: VTimezoneDef[], direct: string[]) {
    for (const d of vtimezones) {
      if (!this.defs.has(d.tzid)) this.defs.set(d.tzid, d);
      const k = keyOf(d.tzid);
      if (!this.defsLoose.has(k)) this.defsLoose.set(k, d);
    }
    this.direct = direct;
  }

  resolve(tzid: string, year: number): ZoneResolution | undefined {
    const named = resolveZoneName(tzid);
    if (named && (named.via === 'iana' || named.via === 'alias')) return { zone: named.zone, how: named.via === 'iana' ? 'IANA' : `alias of ${named.zone}` };
    const def = this.defs.get(tzid) ?? this.defsLoose.get(keyOf(tzid));
    if (named && !def) return { zone: named.zone, how: named.via === 'windows' ? 'Windows zone name' : 'offset label' };
    if (!def) return undefined;
    if (named) {
      const samples = offsetSamples(def, year);
      if (!samples.length || samples.every(([t, o]) => offsetAt(named.zone, t) === o)) {
        return { zone: named.zone, how: named.via === 'windows' ? 'Windows zone name (matches VTIMEZONE)' : 'offset label (matches VTIMEZONE)' };
      }
    }
    const lic = def.licLocation ? canonicalZone(def.licLocation) : undefined;
    if (lic) return { zone: lic, how: 'X-LIC-LOCATION' };
    const r = this.byRules(def, year, windowsZoneToIana(tzid));
    if (r) return r;
    if (named) return { zone: named.zone, how: 'name (VTIMEZONE unusable)' };
    return undefined;
  }

  /** The zone whose offsets match the VTIMEZONE's in `year`: `hint` and the file's own zones first. */
  private byRules(def: VTimezoneDef, year: number, hint?: string): ZoneResolution | undefined {
    const samples = offsetSamples(def, year);
    if (!samples.length) return undefined;
    const preferred = hint ? [hint, ...this.direct] : this.direct;
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
  }
}

/** X-WR-TIMEZONE, else the zone of the file's one VTIMEZONE (all its TZIDs resolving alike), else the default. */
function calendarZoneOf(opts: ZoneContextOptions, xwr: string | undefined, resolver: TzidResolver): { zone: string; how: string } {
  const xwrResolved = opts.xWrTimezone ? (xwr ?? resolver.resolve(opts.xWrTimezone, opts.refYear)?.zone) : undefined;
  if (xwrResolved) return { zone: xwrResolved, how: 'X-WR-TIMEZONE' };
  const zones = new Set<string>();
  for (const d of opts.vtimezones) {
    const r = resolver.resolve(d.tzid, opts.refYear);
    zones.add(r ? r.zone : `?${d.tzid}`);
  }
  const only = zones.size === 1 ? [...zones][0] : undefined;
  if (only && !only.startsWith('?')) return { zone: only, how: 'the only VTIMEZONE' };
  return { zone: resolveZoneName(opts.defaultTimezone)?.zone ?? 'UTC', how: 'default' };
}

export function buildZoneContext(opts: ZoneContextOptions): ZoneContext {
  const xwr = opts.xWrTimezone ? resolveZoneName(opts.xWrTimezone)?.zone : undefined;
  const resolver = new TzidResolver(opts.vtimezones, directZones(xwr, opts.usedTzids));
  const { zone: calendarZone, how: calendarZoneHow } = calendarZoneOf(opts, xwr, resolver);
  const cache = new Map<string, ZoneResolution>();
  return {
    calendarZone,
    calendarZoneHow,
    resolve(tzid: string, atSec: number): ZoneResolution {
      let hit = cache.get(tzid);
      if (hit === undefined) {
        hit = resolver.resolve(tzid, civilFromDays(Math.floor(atSec / 86_400)).y) ?? {
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
