/**
 * Time-zone cells → the zone string the site accepts (CONTRACT: "any PHP timezone id or
 * `UTC±h[.frac]`").
 *
 * - IANA names, any case ("europe/berlin" → "Europe/Berlin"), checked against the runtime's tz data.
 * - `UTC`, `GMT`, `Z`, `UTC+0` → `UTC`.
 * - Whole-hour offsets (`UTC+2`, `GMT-5`, `+02:00`) → `Etc/GMT-2` / `Etc/GMT+5` (note the POSIX
 *   sign inversion), so they stay IANA names every consumer (Intl, luxon, ICS export) understands.
 * - Offsets with minutes (`UTC+3:30`, The Events Calendar's own test file) have no Etc/ zone; they
 *   become the site's own offset form `UTC+3.5`. That string is valid on the site but is NOT an
 *   IANA name: code that converts wall times to instants must handle it (see `fixedOffsetMinutes`).
 */

const OFFSET = /^(?:(?:utc|gmt)\s*)?([+-])\s*(\d{1,2})(?:(?::|h)?(\d{2}))?$/i;
const SITE_OFFSET = /^UTC([+-])(\d{1,2})(?:\.(\d+))?$/;

export type ZoneResult = { ok: true; value: string | undefined } | { ok: false; reason: string };

const cache = new Map<string, string | null>();

let byLowerCase: Map<string, string> | undefined;

/**
 * The IANA name as the user wrote it when the runtime knows it, with its case fixed from the
 * runtime's list ("europe/berlin" → "Europe/Berlin"); null when unknown. Not Intl's resolved name:
 * ICU canonicalizes links ("Europe/Nicosia" → "Asia/Nicosia"), and the file's name is the one the
 * user and the site (PHP knows the links) expect to see.
 */
export function ianaZone(name: string): string | null {
  let hit = cache.get(name);
  if (hit !== undefined) return hit;
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
    byLowerCase ??= new Map(Intl.supportedValuesOf('timeZone').map((z) => [z.toLowerCase(), z]));
    const known = byLowerCase.get(name.toLowerCase());
    hit = known ?? (name === name.toLowerCase() || name === name.toUpperCase() ? resolved : name);
  } catch {
    hit = null;
  }
  if (cache.size > 1000) cache.clear();
  cache.set(name, hit);
  return hit;
}

export function offsetZone(sign: '+' | '-', hours: number, minutes: number): string | undefined {
  if (hours > 14 || minutes > 59 || (hours === 14 && minutes > 0)) return undefined;
  if (hours === 0 && minutes === 0) return 'UTC';
  if (minutes === 0) {
    if (sign === '-' && hours > 12) return undefined;
    return `Etc/GMT${sign === '+' ? '-' : '+'}${hours}`;
  }
  if (minutes % 15 !== 0) return undefined;
  return `UTC${sign}${hours}.${String(minutes / 60).slice(2)}`;
}

export function parseZone(cell: string | undefined): ZoneResult {
  const v = (cell ?? '').trim();
  if (!v) return { ok: true, value: undefined };
  if (/^(?:utc|gmt|z|zulu|utc[+-]0+(?::?00)?|gmt[+-]0+(?::?00)?)$/i.test(v)) return { ok: true, value: 'UTC' };
  const m = OFFSET.exec(v);
  if (m) {
    const zone = offsetZone(m[1] as '+' | '-', Number(m[2]), m[3] ? Number(m[3]) : 0);
    return zone ? { ok: true, value: zone } : { ok: false, reason: `'${v}' is not a valid UTC offset` };
  }
  const site = /^UTC([+-])(\d{1,2})\.(\d+)$/i.exec(v);
  if (site) {
    const zone = offsetZone(site[1] as '+' | '-', Number(site[2]), Math.round(Number(`0.${site[3]}`) * 60));
    if (zone) return { ok: true, value: zone };
  }
  const iana = ianaZone(v);
  if (iana) return { ok: true, value: iana === 'Etc/UTC' || iana === 'Etc/GMT' ? 'UTC' : iana };
  return { ok: false, reason: `'${v}' is not a time zone (an IANA name like Europe/Paris, or UTC+2)` };
}

/** Minutes east of UTC for the site's `UTC±h[.frac]` form; undefined for IANA names. */
export function fixedOffsetMinutes(zone: string): number | undefined {
  if (zone === 'UTC') return 0;
  const m = SITE_OFFSET.exec(zone);
  if (!m) return undefined;
  const minutes = Number(m[2]) * 60 + Math.round(Number(`0.${m[3] ?? '0'}`) * 60);
  return m[1] === '-' ? -minutes : minutes;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Wall time of an instant in a zone (for date-time cells that carry their own offset or `Z`). */
export function wallTimeIn(epochMs: number, zone: string): { y: number; m: number; d: number; h: number; mi: number; s: number } {
  const fixed = fixedOffsetMinutes(zone);
  if (fixed !== undefined) {
    const t = new Date(epochMs + fixed * 60_000);
    return { y: t.getUTCFullYear(), m: t.getUTCMonth() + 1, d: t.getUTCDate(), h: t.getUTCHours(), mi: t.getUTCMinutes(), s: t.getUTCSeconds() };
  }
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  const parts: Record<string, number> = {};
  for (const p of f.formatToParts(new Date(epochMs))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return { y: parts.year!, m: parts.month!, d: parts.day!, h: parts.hour!, mi: parts.minute!, s: parts.second! };
}
