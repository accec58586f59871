import { civilFromDays, resolveZoneName, utcToWall } from '../../model/timezones.ts';
import { memoized } from '../../util/memo.ts';

/**
 * Time-zone cells → the zone string the site accepts, through the one zone module
 * (src/model/timezones.ts, `resolveZoneName`), so a CSV cell, an ICS TZID and a site's `timezone`
 * read the same way:
 * - IANA names, any case ("europe/berlin" → "Europe/Berlin"; deprecated aliases such as US/Eastern
 *   become the zone they name), Windows ids and Outlook labels;
 * - `UTC`, `GMT`, `Z`, `UTC+0` → `UTC`; whole-hour offsets (`UTC+2`, `+02:00`) → `Etc/GMT-2`;
 * - offsets with minutes (`UTC+3:30`, `UTC+3.5`) → the site's own form `UTC+3.5` (no IANA name exists).
 */

export type ZoneResult = { ok: true; value: string | undefined } | { ok: false; reason: string };

const LOOKS_LIKE_OFFSET = /^(?:utc|gmt)?\s*[+-]\s*\d/i;

/** A zone cell. The result is shared with other calls (a file's zones repeat), and frozen. */
export function parseZone(cell: string | undefined): ZoneResult {
  const v = (cell ?? '').trim();
  if (!v) return { ok: true, value: undefined };
  return zoneOf(v);
}

const zoneOf = memoized((v: string) => Object.freeze(readZone(v)));

function readZone(v: string): ZoneResult {
  const r = resolveZoneName(v);
  if (r) return { ok: true, value: r.zone };
  if (LOOKS_LIKE_OFFSET.test(v)) return { ok: false, reason: `'${v}' is not a valid UTC offset` };
  return { ok: false, reason: `'${v}' is not a time zone (an IANA name like Europe/Paris, or UTC+2)` };
}

/** Wall time of an instant in a zone (for date-time cells that carry their own offset or `Z`). */
export function wallTimeIn(epochMs: number, zone: string): { y: number; m: number; d: number; h: number; mi: number; s: number } {
  const sec = Math.floor(epochMs / 1000);
  const wall = utcToWall(zone, sec);
  const days = Math.floor(wall / 86_400);
  const r = wall - days * 86_400;
  const { y, m, d } = civilFromDays(days);
  return { y, m, d, h: Math.floor(r / 3600), mi: Math.floor((r % 3600) / 60), s: r % 60 };
}
