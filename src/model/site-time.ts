import { fixedOffsetZone, offsetAt, utcToWall, wallToUtc } from './timezones.ts';

/**
 * The instant a calendar site stores for a wall time in a zone. The Events Calendar reads
 * `start_date`/`end_date` as PHP's DateTime does: the wall time read as UTC gives an offset, the
 * wall time less that offset another, and that second offset is used. So in a time repeated when DST
 * ends it takes the LATER instant in zones east of UTC (`2027-10-31 02:30:00` Europe/Berlin is stored
 * as 01:30Z, CET; Australia/Sydney, Adelaide, Lord_Howe alike) and the earlier one west of it
 * (America/New_York); a time skipped when DST starts is moved forward by the gap, as wallToUtc does.
 * Measured on TEC 6.17.1 and 6.17.2 (test/contract/ambiguous-times.test.ts); the sandbox reads the
 * same way (src/sandbox/dates.ts).
 */
export function siteWallToUtc(zone: string, wall: number): number {
  const instant = wall - offsetAt(zone, wall - offsetAt(zone, wall));
  return utcToWall(zone, instant) === wall ? instant : wallToUtc(zone, wall);
}

/**
 * A zone in which an event's instants are written unambiguously, or undefined when `zone` already is:
 * when the wall time of its start or end in `zone` would be read back, by calsync (wallToUtc: the
 * earlier instant of a repeated hour) or by the site (siteWallToUtc), as another instant, the fixed zone
 * of the start's offset (`Etc/GMT-2`), where every wall time has one instant; UTC for an offset of no
 * whole hour. Only events in the hour a year that DST repeats need it.
 */
export function unambiguousZone(zone: string, startUtc: number, endUtc: number): string | undefined {
  if (zone === 'UTC') return undefined;
  // Most events are shorter than a day and far from a transition: one offset from a day before their
  // start to a day after their end (DST changes are months apart), two lookups instead of six.
  if (endUtc - startUtc <= DAY && offsetAt(zone, startUtc - DAY) === offsetAt(zone, endUtc + DAY)) return undefined;
  if (readsBack(zone, startUtc) && readsBack(zone, endUtc)) return undefined;
  return fixedOffsetZone(offsetAt(zone, startUtc)) ?? 'UTC';
}

const DAY = 86_400;

function readsBack(zone: string, utc: number): boolean {
  // Most instants have no transition within a day of them: their wall time has one reading.
  const offset = offsetAt(zone, utc);
  if (offsetAt(zone, utc - DAY) === offset && offsetAt(zone, utc + DAY) === offset) return true;
  const wall = utc + offset;
  return wallToUtc(zone, wall) === utc && siteWallToUtc(zone, wall) === utc;
}
