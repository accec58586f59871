import { WINDOWS_ZONES } from './windows-zones.ts';

/**
 * Time-zone helpers shared by every source: civil-date arithmetic, IANA zone lookup and wall-time <->
 * instant conversion through `Intl` (the runtime's tzdata), resolution of the names calendars use
 * (IANA ids, legacy aliases, Windows ids and Outlook display labels, offset labels) and matching a set
 * of observed UTC offsets to an IANA zone.
 *
 * Times are plain numbers of SECONDS: "UTC seconds" are instants (Unix time), "local seconds" are a wall
 * clock reading encoded the same way (the wall time read as if it were UTC). Nothing here uses the host
 * time zone or `Date` field getters, so results do not depend on `TZ`. Civil arithmetic is our own because
 * `Date.UTC` maps years 0-99 to 1900-1999 (VTIMEZONEs start in 1601 or even 0001).
 */

const DAY = 86_400;

export interface CivilDate {
  y: number;
  m: number;
  d: number;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
export function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

export function civilFromDays(days: number): CivilDate {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return { y: yoe + era * 400 + (m <= 2 ? 1 : 0), m, d };
}

/** Weekday of a day number, Monday = 0 ... Sunday = 6 (1970-01-01 was a Thursday). */
export function weekdayOf(days: number): number {
  return (((days + 3) % 7) + 7) % 7;
}

export function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

/** Built once: a literal inside daysInMonth is a new array on every call (each time value read, each month a rule visits). */
const MONTH_DAYS: readonly number[] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export function daysInMonth(y: number, m: number): number {
  return m === 2 ? (isLeapYear(y) ? 29 : 28) : MONTH_DAYS[m - 1];
}

/** Local or UTC seconds from fields; validates the fields (returns undefined for 2017-10-32). */
export function secondsFromFields(y: number, m: number, d: number, hh = 0, mi = 0, ss = 0): number | undefined {
  if (!(m >= 1 && m <= 12 && d >= 1 && d <= daysInMonth(y, m) && hh >= 0 && hh <= 23 && mi >= 0 && mi <= 59)) return undefined;
  // A leap second (ss = 60) is folded onto the next second rather than rejected.
  if (!(ss >= 0 && ss <= 60)) return undefined;
  return daysFromCivil(y, m, d) * DAY + hh * 3600 + mi * 60 + ss;
}

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');
const p2 = (n: number): string => (n < 10 ? `0${n}` : `${n}`);
const p4 = (n: number): string => (n >= 1000 ? `${n}` : pad(n, 4));

/** `YYYY-MM-DD` of a day number. */
export function formatDay(days: number): string {
  const { y, m, d } = civilFromDays(days);
  return `${p4(y)}-${p2(m)}-${p2(d)}`;
}

/** `YYYY-MM-DD HH:MM:SS` of local seconds: the draft wall-time format. */
export function formatWall(sec: number): string {
  return wallString(sec, SPACE, false);
}

/** `YYYY-MM-DDTHH:MM:SS` (no zone designator): used for floating occurrence keys. */
export function formatLocalIso(sec: number): string {
  return wallString(sec, T, false);
}

/** `YYYY-MM-DDTHH:MM:SSZ` of UTC seconds. */
export function formatUtcIso(sec: number): string {
  return wallString(sec, T, true);
}

const SPACE = 32;
const T = 84;
const Z = 90;
const digit = (n: number): number => 48 + n;

/**
 * The three formats above, built as one flat string. A template literal of eight pieces is a tree of
 * cons-strings in V8 (about 200 bytes for these 19 characters instead of 40), and a big feed's drafts
 * keep two of them per occurrence (start and end). Years outside 0..9999 and fractional seconds take
 * the general path, which formats them as before.
 */
function wallString(sec: number, sep: number, zulu: boolean): string {
  const days = Math.floor(sec / DAY);
  const r = sec - days * DAY;
  const { y, m, d } = civilFromDays(days);
  const hh = Math.floor(r / 3600);
  const mi = Math.floor((r % 3600) / 60);
  const ss = r % 60;
  if (!(y >= 0 && y <= 9999) || !Number.isInteger(ss)) {
    return `${formatDay(days)}${String.fromCharCode(sep)}${p2(hh)}:${p2(mi)}:${p2(ss)}${zulu ? 'Z' : ''}`;
  }
  const y0 = digit(Math.floor(y / 1000)), y1 = digit(Math.floor(y / 100) % 10), y2 = digit(Math.floor(y / 10) % 10), y3 = digit(y % 10);
  const m0 = digit(Math.floor(m / 10)), m1 = digit(m % 10), d0 = digit(Math.floor(d / 10)), d1 = digit(d % 10);
  const h0 = digit(Math.floor(hh / 10)), h1 = digit(hh % 10), i0 = digit(Math.floor(mi / 10)), i1 = digit(mi % 10), s0 = digit(Math.floor(ss / 10)), s1 = digit(ss % 10);
  return zulu
    ? String.fromCharCode(y0, y1, y2, y3, 45, m0, m1, 45, d0, d1, sep, h0, h1, 58, i0, i1, 58, s0, s1, Z)
    : String.fromCharCode(y0, y1, y2, y3, 45, m0, m1, 45, d0, d1, sep, h0, h1, 58, i0, i1, 58, s0, s1);
}

// ---------------------------------------------------------------------------------------------
// IANA zones through Intl
// ---------------------------------------------------------------------------------------------

/**
 * V8/ICU report CLDR's canonical ids, which keep spellings IANA has since renamed (`Asia/Kolkata` comes
 * back as `Asia/Calcutta`). Map those to the current IANA names so we never write an older name than the
 * feed did.
 */
const CLDR_TO_IANA: Readonly<Record<string, string>> = {
  'Africa/Asmera': 'Africa/Asmara', 'America/Buenos_Aires': 'America/Argentina/Buenos_Aires',
  'America/Catamarca': 'America/Argentina/Catamarca', 'America/Coral_Harbour': 'America/Atikokan',
  'America/Cordoba': 'America/Argentina/Cordoba', 'America/Godthab': 'America/Nuuk',
  'America/Indianapolis': 'America/Indiana/Indianapolis', 'America/Jujuy': 'America/Argentina/Jujuy',
  'America/Louisville': 'America/Kentucky/Louisville', 'America/Mendoza': 'America/Argentina/Mendoza',
  'Asia/Calcutta': 'Asia/Kolkata', 'Asia/Katmandu': 'Asia/Kathmandu', 'Asia/Rangoon': 'Asia/Yangon',
  'Asia/Saigon': 'Asia/Ho_Chi_Minh', 'Atlantic/Faeroe': 'Atlantic/Faroe', 'Europe/Kiev': 'Europe/Kyiv',
  'Pacific/Enderbury': 'Pacific/Kanton', 'Pacific/Ponape': 'Pacific/Pohnpei', 'Pacific/Truk': 'Pacific/Chuuk',
};

const canonicalCache = new Map<string, string | null>();
let byLowerCase: Map<string, string> | undefined;

/**
 * Deprecated aliases (tzdata's `backward` file): country folders and bare names. They become the zone
 * they name; a current name (`Europe/Nicosia`, which ICU folds into `Asia/Nicosia`) is kept as written,
 * because it is what the user chose and what the site shows back.
 */
const DEPRECATED_ALIAS = /^(?:(?:US|Canada|Mexico|Brazil|Chile)\/|[A-Za-z0-9+-]+$)/i;

/**
 * The spelling to use for an IANA zone, or undefined when the runtime does not know it: the runtime's
 * spelling of a name written in another case (`europe/berlin` -> `Europe/Berlin`), the target of a
 * deprecated alias (`US/Eastern` -> `America/New_York`, `Etc/GMT` -> `UTC`), the current IANA spelling of
 * an old one CLDR still uses (`Asia/Calcutta` -> `Asia/Kolkata`), otherwise the name as written
 * (`Europe/Kiev`, `Asia/Kolkata`, `Europe/Nicosia` stay).
 */
export function canonicalZone(name: string): string | undefined {
  if (!name) return undefined;
  let hit = canonicalCache.get(name);
  if (hit === undefined) {
    hit = spellingOf(name);
    if (canonicalCache.size > 10_000) canonicalCache.clear();
    canonicalCache.set(name, hit);
  }
  return hit ?? undefined;
}

function spellingOf(name: string): string | null {
  let cldr: string;
  try {
    cldr = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
  byLowerCase ??= new Map(Intl.supportedValuesOf('timeZone').map((z) => [z.toLowerCase(), z]));
  if (cldr === 'UTC') return 'UTC';
  // Newer runtimes take `+05:30` as a zone; it is an offset, written in the one offset form below.
  if (/^[+-]\d/.test(cldr)) return null;
  if (cldr === name || CLDR_TO_IANA[cldr] === name) return name;
  const listed = byLowerCase.get(name.toLowerCase());
  if (listed) return listed;
  if (DEPRECATED_ALIAS.test(name) || name === name.toLowerCase() || name === name.toUpperCase()) return CLDR_TO_IANA[cldr] ?? cldr;
  return name;
}

/** True for a zone the site and this module both read: an IANA name or the site's `UTC±h[.frac]` form. */
export function isValidZone(name: string): boolean {
  return canonicalZone(name) !== undefined || fixedZoneOffset(name) !== undefined;
}

let allZones: string[] | undefined;
/** Every zone the runtime knows (canonical names, current IANA spelling). */
export function allZoneNames(): string[] {
  allZones ??= Intl.supportedValuesOf('timeZone').map((z) => CLDR_TO_IANA[z] ?? z);
  return allZones;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
const WALL_RE = /^(\d+)\/(\d+)\/(\d+),? (\d+):(\d+):(\d+)$/;

function rawOffset(zone: string, utcSec: number): number {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric',
      hour: 'numeric', minute: 'numeric', second: 'numeric',
    });
    formatters.set(zone, f);
  }
  // `format` + a regex is about twice as fast as `formatToParts` and the en-US shape is fixed.
  const m = WALL_RE.exec(f.format(new Date(utcSec * 1000)));
  if (!m) throw new Error(`unexpected Intl output for ${zone}`);
  const local = daysFromCivil(+m[3], +m[1], +m[2]) * DAY + +m[4] * 3600 + +m[5] * 60 + +m[6];
  return local - utcSec;
}

const BUCKET = 900;
interface ZoneCache {
  /**
   * The days map's last answers, by day modulo RECENT: converting one time asks for the days around
   * it, and a feed's times come day by day; an array read costs less than a map lookup.
   */
  recentDay: Float64Array;
  recentOffset: Float64Array;
  /** UTC day -> offset, for days without a transition (nearly all). */
  days: Map<number, number>;
  /** 15-minute bucket -> offset, inside transition days. */
  buckets: Map<number, number>;
}
const offsetCache = new Map<string, ZoneCache>();
const RECENT = 64;

/**
 * UTC offset (seconds, east positive) of `zone` at an instant. Cached per zone and UTC day when the
 * offset is the same at both ends of the day, else per 15-minute bucket (modern transitions fall on
 * quarter hours; anything else is computed exactly).
 */
export function offsetAt(zone: string, utcSec: number): number {
  if (zone === 'UTC') return 0;
  const fixed = fixedZoneOffset(zone);
  if (fixed !== undefined) return fixed;
  let cache = offsetCache.get(zone);
  if (!cache) offsetCache.set(zone, (cache = { recentDay: new Float64Array(RECENT).fill(NaN), recentOffset: new Float64Array(RECENT), days: new Map(), buckets: new Map() }));
  const day = Math.floor(utcSec / DAY);
  const slot = day & (RECENT - 1);
  if (cache.recentDay[slot] === day) return cache.recentOffset[slot];
  const hit = cache.days.get(day);
  if (hit !== undefined) {
    cache.recentDay[slot] = day;
    cache.recentOffset[slot] = hit;
    return hit;
  }
  const b = Math.floor(utcSec / BUCKET);
  const bh = cache.buckets.get(b);
  if (bh !== undefined) return bh;
  if (cache.days.size > 100_000) cache.days.clear();
  if (cache.buckets.size > 100_000) cache.buckets.clear();
  const a = rawOffset(zone, day * DAY);
  if (rawOffset(zone, day * DAY + DAY - 1) === a) {
    cache.days.set(day, a);
    return a;
  }
  const ba = rawOffset(zone, b * BUCKET);
  if (rawOffset(zone, b * BUCKET + BUCKET - 1) === ba) {
    cache.buckets.set(b, ba);
    return ba;
  }
  return rawOffset(zone, utcSec);
}

/** Wall time of an instant in `zone`. */
export function utcToWall(zone: string, utcSec: number): number {
  return utcSec + offsetAt(zone, utcSec);
}

/**
 * The instant of a wall time in `zone`, with Temporal's "compatible" disambiguation: a time repeated at the
 * end of DST takes the earlier instant, a time skipped at the start of DST is moved forward by the gap
 * (RFC 5545 3.3.5 asks for the same).
 */
export function wallToUtc(zone: string, localSec: number): number {
  if (zone === 'UTC') return localSec;
  const early = offsetAt(zone, localSec - DAY);
  const late = offsetAt(zone, localSec + DAY);
  if (early === late) return localSec - early;
  const t1 = localSec - early;
  const t2 = localSec - late;
  const ok1 = offsetAt(zone, t1) === early;
  const ok2 = offsetAt(zone, t2) === late;
  if (ok1 && ok2) return Math.min(t1, t2);
  if (ok1) return t1;
  if (ok2) return t2;
  return t1;
}

// ---------------------------------------------------------------------------------------------
// Names calendars use for zones
// ---------------------------------------------------------------------------------------------

export type ZoneVia = 'iana' | 'alias' | 'windows' | 'offset';
export interface ResolvedZoneName {
  zone: string;
  via: ZoneVia;
}

function normalizeLabel(label: string): string {
  return label
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/^"+|"+$/g, '')
    .replace(/\\,/g, ',')
    .replace(/;/g, ',')
    .replace(/\band\b/gi, '&')
    .replace(/\s+/g, ' ')
    .replace(/\s*:\s*/g, ':')
    .replace(/\s*,\s*/g, ', ')
    .trim()
    .toLowerCase();
}

const OFFSET_PREFIX = /^\((?:utc|gmt)(?:\s*([+-]\d{1,2}):?(\d{2})?)?\)\s*/i;

let labelIndex: Map<string, string> | undefined;
function windowsIndex(): Map<string, string> {
  if (labelIndex) return labelIndex;
  labelIndex = new Map();
  const add = (label: string, zone: string): void => {
    const key = normalizeLabel(label);
    if (key && !labelIndex!.has(key)) labelIndex!.set(key, zone);
  };
  // Exact ids and labels first, then labels without their "(UTC+01:00) " prefix, so an exact entry wins.
  for (const [label, zone] of Object.entries(WINDOWS_ZONES)) add(label, zone);
  for (const [label, zone] of Object.entries(WINDOWS_ZONES)) add(label.replace(OFFSET_PREFIX, ''), zone);
  return labelIndex;
}

/** A Windows zone id or Outlook display label (`W. Europe Standard Time`, `(UTC-05:00) Eastern Time (US and Canada)`). */
export function windowsZoneToIana(label: string): string | undefined {
  const idx = windowsIndex();
  const key = normalizeLabel(label);
  const hit = idx.get(key) ?? idx.get(key.replace(OFFSET_PREFIX, ''));
  if (hit) return canonicalZone(hit) ?? hit;
  return undefined;
}

// Offsets, as calendars, spreadsheets and the site write them. The site's own form is `UTC+5`,
// `UTC-3.5` (hours with a decimal fraction); Outlook writes `(UTC+05:30) Chennai, …` labels.

/** A whole string that is only an offset: `UTC+3.5`, `UTC+05:30`, `GMT-4`, `+0530`, `UTC+3h30`. */
const OFFSET_ONLY = /^(?:(?:utc|gmt)\s*)?([+-])\s*(\d{1,2})(?:[:h]?(\d{2})|[.,](\d{1,2}))?$/i;
/** The offset at the head of a display label: `(UTC+01:00) Amsterdam, …`, `(UTC) Casablanca`. */
const LABEL_HEAD = /^\(\s*(?:utc|gmt)\s*(?:([+-])\s*(\d{1,2})(?::?(\d{2}))?)?\s*\)/i;
const UTC_ONLY = /^\(?\s*(?:utc|gmt|ut|z|zulu)\s*\)?$/i;
const MAX_OFFSET = 14 * 3600;

/**
 * Offset (seconds, east positive) of a string that is an offset, or of a display label that starts with
 * one; undefined otherwise. Anchored on purpose: `UTC+3.5` is 3 h 30, never `UTC+3` plus junk.
 */
export function offsetFromLabel(label: string): number | undefined {
  const s = label.trim().replace(/^"+|"+$/g, '').trim();
  if (UTC_ONLY.test(s)) return 0;
  const m = OFFSET_ONLY.exec(s) ?? LABEL_HEAD.exec(s);
  if (!m) return undefined;
  if (!m[1]) return 0;
  const minutes = m[3] !== undefined ? +m[3] : m[4] !== undefined ? Math.round(Number(`0.${m[4]}`) * 60) : 0;
  const sec = +m[2] * 3600 + minutes * 60;
  if (minutes > 59 || sec > MAX_OFFSET) return undefined;
  return m[1] === '-' ? -sec : sec;
}

/**
 * The zone name for a fixed offset, as every part of calsync writes it: `UTC`; `Etc/GMT-N` for whole
 * hours (POSIX-inverted sign; an IANA name every consumer reads); the site's own `UTC±h.frac` for
 * quarter hours (no IANA name exists: `UTC+3.5`, `UTC-9.5`, `UTC+5.75`). Undefined when neither exists.
 */
export function offsetZoneName(offsetSec: number): string | undefined {
  if (offsetSec % 3600 === 0) return fixedOffsetZone(offsetSec);
  if (offsetSec % 900 !== 0 || Math.abs(offsetSec) > MAX_OFFSET) return undefined;
  const minutes = Math.abs(offsetSec) / 60;
  return `UTC${offsetSec < 0 ? '-' : '+'}${Math.floor(minutes / 60)}.${String((minutes % 60) / 60).slice(2)}`;
}

const SITE_OFFSET = /^UTC(?:([+-])(\d{1,2})(?:\.(\d{1,2}))?)?$/;
const fixedCache = new Map<string, number | null>();

/**
 * Offset (seconds) of a zone in the site's offset form (`UTC`, `UTC+5`, `UTC-3.5`, `UTC+5.75`), which
 * offsetAt/wallToUtc accept like IANA names; undefined for anything else (IANA names included).
 */
export function fixedZoneOffset(zone: string): number | undefined {
  if (!zone.startsWith('UTC')) return undefined;
  let hit = fixedCache.get(zone);
  if (hit === undefined) {
    const m = SITE_OFFSET.exec(zone);
    const sec = !m ? undefined : !m[1] ? 0 : offsetFromLabel(zone);
    hit = sec ?? null;
    if (fixedCache.size > 1000) fixedCache.clear();
    fixedCache.set(zone, hit);
  }
  return hit ?? undefined;
}

/**
 * The IANA zone for a fixed UTC offset: `UTC`, or `Etc/GMT-N` (POSIX-inverted sign) for whole hours.
 * Offsets that are not whole hours have no Etc zone (see offsetZoneName for the site's form).
 */
export function fixedOffsetZone(offsetSec: number): string | undefined {
  if (offsetSec === 0) return 'UTC';
  if (offsetSec % 3600 !== 0) return undefined;
  const h = offsetSec / 3600;
  if (h < -12 || h > 14) return undefined;
  return `Etc/GMT${h > 0 ? '-' : '+'}${Math.abs(h)}`;
}

let byCity: Map<string, string | null> | undefined;
function zoneByCity(city: string): string | undefined {
  if (!byCity) {
    byCity = new Map();
    for (const z of allZoneNames()) {
      const key = z.split('/').pop()!.toLowerCase();
      byCity.set(key, byCity.has(key) ? null : z);
    }
  }
  return byCity.get(city.toLowerCase()) ?? undefined;
}

/**
 * Resolve a zone name as calendars write it, without any VTIMEZONE: an IANA id (canonicalized, so legacy
 * links like `US/Eastern` become `America/New_York`), a Windows id or display label, `US-Eastern` style
 * dashes, an unknown region with a known city (`Germany/Berlin`), or an offset label (`UTC+2`).
 */
const MAX_ZONE_NAME = 200;

export function resolveZoneName(raw: string): ResolvedZoneName | undefined {
  const name = raw.trim().replace(/^"+|"+$/g, '').trim();
  // No real zone id or Windows label comes near this; damaged input (a whole line swallowed by an
  // unclosed quote) must not reach the matching below.
  if (!name || name.length > MAX_ZONE_NAME) return undefined;
  const iana = canonicalZone(name);
  if (iana) return { zone: iana, via: iana === name ? 'iana' : 'alias' };
  const win = windowsZoneToIana(name);
  if (win) return { zone: win, via: 'windows' };
  // "/mozilla.org/20070129_1/Europe/Berlin" and similar prefixed ids.
  // (Split, not an unanchored regex: that was quadratic on long runs of letters.)
  const segs = name.split('/');
  const tail = [3, 2].map((k) => segs.slice(-k).join('/')).find((t) => /^[A-Za-z_]+\/[A-Za-z_+-]+(?:\/[A-Za-z_+-]+)?$/.test(t));
  if (tail && tail !== name) {
    const z = canonicalZone(tail);
    if (z) return { zone: z, via: 'alias' };
  }
  if (!name.includes('/') && /^[A-Za-z]+-[A-Za-z_-]+$/.test(name)) {
    const z = canonicalZone(name.replace('-', '/'));
    if (z) return { zone: z, via: 'alias' };
  }
  const parts = name.split('/');
  if (parts.length >= 2 && /^[A-Za-z_]+$/.test(parts[parts.length - 1])) {
    const z = zoneByCity(parts[parts.length - 1]);
    if (z) return { zone: z, via: 'alias' };
  }
  const off = offsetFromLabel(name);
  if (off !== undefined) {
    const z = offsetZoneName(off);
    if (z) return { zone: z, via: 'offset' };
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Matching observed offsets to a zone (custom VTIMEZONEs)
// ---------------------------------------------------------------------------------------------

/**
 * Zones tried first, in this order, when several share the same rules: the zone people most likely mean
 * for a rule set (a German university's "CampusNetZeit" is Europe/Berlin, not Africa/Ceuta).
 */
const PREFERRED_ZONES = [
  'Europe/Berlin', 'Europe/London', 'America/New_York', 'America/Chicago', 'America/Denver', 'America/Phoenix',
  'America/Los_Angeles', 'America/Anchorage', 'Pacific/Honolulu', 'America/Halifax', 'America/St_Johns',
  'America/Sao_Paulo', 'America/Mexico_City', 'Europe/Helsinki', 'Europe/Athens', 'Europe/Moscow', 'Europe/Istanbul',
  'Asia/Jerusalem', 'Asia/Dubai', 'Asia/Tehran', 'Asia/Karachi', 'Asia/Kolkata', 'Asia/Kathmandu', 'Asia/Dhaka',
  'Asia/Bangkok', 'Asia/Shanghai', 'Asia/Singapore', 'Asia/Tokyo', 'Australia/Brisbane', 'Australia/Sydney',
  'Australia/Adelaide', 'Australia/Darwin', 'Australia/Perth', 'Pacific/Auckland', 'Africa/Johannesburg', 'Africa/Lagos',
  'Africa/Cairo', 'Africa/Nairobi', 'UTC',
];

/** One observed (instant, offset) pair a candidate zone must reproduce. */
export type OffsetSample = readonly [utcSec: number, offsetSec: number];

export interface ZoneMatch {
  zone: string;
  /** Samples the zone got wrong (0 = exact match). */
  misses: number;
  samples: number;
}

/**
 * The first zone (in `preferred` order, then a list of well-known zones, then Windows' primary zones, then
 * every zone) whose offsets equal all samples; failing that, the one with the fewest misses. Stops at the
 * first miss per candidate, so a full scan costs a few thousand cached offset lookups.
 */
export function findZoneByOffsets(samples: readonly OffsetSample[], preferred: readonly string[] = []): ZoneMatch | undefined {
  if (samples.length === 0) return undefined;
  const seen = new Set<string>();
  let best: ZoneMatch | undefined;
  const consider = (name: string): ZoneMatch | undefined => {
    const zone = canonicalZone(name);
    if (!zone || seen.has(zone)) return undefined;
    seen.add(zone);
    let misses = 0;
    for (const [t, off] of samples) {
      if (offsetAt(zone, t) !== off) {
        misses++;
        if (best && misses >= best.misses) return undefined;
      }
    }
    const m = { zone, misses, samples: samples.length };
    if (!best || misses < best.misses) best = m;
    return misses === 0 ? m : undefined;
  };
  for (const list of [preferred, PREFERRED_ZONES, Object.values(WINDOWS_ZONES), allZoneNames()]) {
    for (const z of list) {
      const hit = consider(z);
      if (hit) return hit;
    }
  }
  return best;
}
