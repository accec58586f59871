import type { EventRecord } from '../api/index.ts';
import { canonicalZone, formatDay, offsetFromLabel, secondsFromFields, wallToUtc } from '../model/timezones.ts';
import { EventRenderError } from './errors.ts';

/**
 * When an event happens, read from a site record.
 *
 * The site's own truth is the local wall time (`start_date`/`end_date`) in the event's `timezone`:
 * that is what it shows and what its list filters compare. `utc_*` can be stale (an update that
 * omits `timezone` resets the zone without recomputing them), so they are only used
 * when the zone is empty or unknown. The zone decides how DTSTART/DTEND are written:
 * - an IANA zone → `TZID=<zone>` with the wall time, plus a VTIMEZONE;
 * - `UTC`, `UTC+0`, offset zones such as `UTC+2` or `UTC-3.5` (no VTIMEZONE can name them
 *   portably) → UTC times (`…Z`) computed from wall − offset;
 * - empty or unknown → the site's `utc_*` fields, as UTC times.
 */

export interface EventTiming {
  allDay: boolean;
  /** IANA zone for TZID; null when the times are written in UTC. */
  zone: string | null;
  /** Instants (UTC seconds) of start and end, used for the window, sorting and DST checks. */
  startSec: number;
  endSec: number;
  /** All-day events: first day and the day AFTER the last one (iCalendar's exclusive DTEND), as day numbers. */
  startDay: number;
  endDayExclusive: number;
}

const WALL = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?$/;
const DAY = 86_400;

/** Local (or UTC) seconds of a `YYYY-MM-DD HH:MM:SS` string; undefined when unparseable (`0000-00-00 …`). */
export function wallSeconds(s: string | undefined | null): number | undefined {
  if (!s) return undefined;
  const m = WALL.exec(s.trim());
  if (!m) return undefined;
  const y = +m[1];
  if (y < 1) return undefined;
  return secondsFromFields(y, +m[2], +m[3], +m[4], +m[5], m[6] ? +m[6] : 0);
}

/**
 * `UTC`, `UTC+2`, `UTC-3.5`, `UTC+5:30` → offset seconds (read by the one zone module, like ICS TZIDs and
 * CSV cells); undefined for anything else, IANA names included.
 */
export function offsetZoneSeconds(tz: string): number | undefined {
  const s = tz.trim();
  return /^(?:utc|gmt)(?:$|\s*[+-])/i.test(s) ? offsetFromLabel(s) : undefined;
}

type Zone = { kind: 'iana'; zone: string } | { kind: 'offset'; offset: number } | { kind: 'unknown' };

const zoneCache = new Map<string, Zone>();

function classifyZone(raw: string | undefined): Zone {
  const tz = (raw ?? '').trim();
  let z = zoneCache.get(tz);
  if (z) return z;
  const off = offsetZoneSeconds(tz);
  if (off !== undefined) z = { kind: 'offset', offset: off };
  else {
    const canon = tz ? canonicalZone(tz) : undefined;
    if (!canon) z = { kind: 'unknown' };
    // Etc/UTC, Universal, Zulu…: UTC times need no VTIMEZONE.
    else if (canon === 'UTC' || canon === 'Etc/UTC' || canon === 'Etc/GMT') z = { kind: 'offset', offset: 0 };
    // The site's spelling is kept for TZID (our VTIMEZONE carries the same name).
    else z = { kind: 'iana', zone: tz };
  }
  if (zoneCache.size > 10_000) zoneCache.clear();
  zoneCache.set(tz, z);
  return z;
}

/**
 * Timing of a record. Throws EventRenderError when its dates cannot be read at all; an end before
 * its start (the site hides such events, but a by-id read can still return one) is clamped to the start.
 */
export function eventTiming(rec: Pick<EventRecord, 'id' | 'start_date' | 'end_date' | 'all_day' | 'timezone' | 'utc_start_date' | 'utc_end_date'>): EventTiming {
  const zone = classifyZone(rec.timezone);
  let startLocal = wallSeconds(rec.start_date);
  let endLocal = wallSeconds(rec.end_date);
  let startSec: number | undefined;
  let endSec: number | undefined;
  let tzid: string | null = null;

  if (zone.kind === 'iana' && startLocal !== undefined) {
    tzid = zone.zone;
    startSec = wallToUtc(zone.zone, startLocal);
    endSec = endLocal !== undefined ? wallToUtc(zone.zone, endLocal) : startSec;
  } else if (zone.kind === 'offset' && startLocal !== undefined) {
    startSec = startLocal - zone.offset;
    endSec = endLocal !== undefined ? endLocal - zone.offset : startSec;
  } else {
    startSec = wallSeconds(rec.utc_start_date);
    endSec = wallSeconds(rec.utc_end_date) ?? startSec;
    // No usable zone: read the wall times as UTC rather than drop the event.
    startSec ??= startLocal;
    endSec ??= endLocal ?? startSec;
    startLocal ??= startSec;
    endLocal ??= endSec;
  }
  if (startSec === undefined || endSec === undefined || startLocal === undefined) {
    throw new EventRenderError(rec.id, `unreadable start_date "${rec.start_date}"`);
  }
  if (endSec < startSec) endSec = startSec;
  endLocal ??= startLocal;
  if (endLocal < startLocal) endLocal = startLocal;

  // All-day: the site stores start-of-day .. end-of-day around its "end of day cutoff"
  // (00:00:00–23:59:59 by default, 04:00:00–next day 03:59:59 with a 04:00 cutoff), so the last
  // day is the day of (end − the start's time of day). DTEND is the day after it (exclusive).
  const allDay = rec.all_day === true;
  const startDay = Math.floor(startLocal / DAY);
  const cutoff = startLocal - startDay * DAY;
  const lastDay = Math.max(startDay, Math.floor((endLocal - cutoff) / DAY));
  return { allDay, zone: allDay ? null : tzid, startSec, endSec, startDay, endDayExclusive: lastDay + 1 };
}

/** `YYYYMMDD` of a day number (for VALUE=DATE and tests). */
export function basicDay(day: number): string {
  return formatDay(day).replaceAll('-', '');
}
