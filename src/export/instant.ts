import type { ICalLuxonDateTimeStub } from 'ical-generator';
import { formatWall, utcToWall } from '../model/timezones.ts';

/**
 * An instant as ical-generator takes a zone-aware date: its `ICalLuxonDateTimeStub`, the
 * structural interface it accepts for Luxon DateTimes (`setZone`, `toFormat`, `toJSDate`, …).
 *
 * Why not Luxon itself: ical-generator only calls `setZone(tz)` and `toFormat('yyyyLLdd' |
 * 'HHmmss')`, and a Luxon DateTime costs tens of µs to build, re-zone and format; with five dates
 * per event that was the largest part of rendering 10k events (bench/export-ics.ts). This class
 * does the same through the project's cached Intl offsets (model/timezones.ts), so, like Luxon and
 * unlike a native Date, its output never depends on the host time zone (LIBRARIES §3).
 */
export class IcsInstant implements ICalLuxonDateTimeStub {
  readonly isValid = true;
  /** Never 'system': ical-generator then keeps an all-day value as given instead of shifting it. */
  readonly zone: { type: string };
  /** UTC seconds. */
  readonly utcSec: number;
  /** IANA zone the fields are read in; null = UTC. */
  readonly tz: string | null;
  #wall: string | undefined;

  constructor(utcSec: number, tz: string | null = null) {
    this.utcSec = utcSec;
    this.tz = tz;
    this.zone = { type: tz ? 'iana' : 'fixed' };
  }

  setZone(zone?: string): IcsInstant {
    const tz = !zone || /^(utc|z)$/i.test(zone) ? null : zone;
    return tz === this.tz ? this : new IcsInstant(this.utcSec, tz);
  }

  /** `YYYY-MM-DD HH:MM:SS` in the instant's zone. */
  private wall(): string {
    this.#wall ??= formatWall(this.tz ? utcToWall(this.tz, this.utcSec) : this.utcSec);
    return this.#wall;
  }

  /** Only the two patterns ical-generator uses. */
  toFormat(fmt: string): string {
    const w = this.wall();
    if (fmt === 'yyyyLLdd') return w.slice(0, 4) + w.slice(5, 7) + w.slice(8, 10);
    if (fmt === 'HHmmss') return w.slice(11, 13) + w.slice(14, 16) + w.slice(17, 19);
    throw new Error(`IcsInstant.toFormat: unsupported pattern "${fmt}"`);
  }

  toJSDate(): Date {
    return new Date(this.utcSec * 1000);
  }

  toJSON(): string {
    return this.toJSDate().toISOString();
  }
}

/** Midnight UTC of a day number: an all-day value (ical-generator writes its date part). */
export function dayInstant(day: number): IcsInstant {
  return new IcsInstant(day * 86_400);
}
