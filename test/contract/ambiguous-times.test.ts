import { describe, expect, it } from 'vitest';
import type { CalendarClient } from '../../src/api/index.ts';
import { useTarget, type Target } from './harness.ts';

/**
 * How the site reads a wall time that DST repeats or skips (PHP's DateTime): a repeated time is the
 * LATER instant in zones east of UTC and the earlier one west of it; a skipped time is moved forward
 * by the gap. calsync writes an ICS instant in such an hour in a fixed zone (src/model/site-time.ts),
 * and writes fixed zones as such. Runs against the sandbox (src/sandbox/dates.ts) and, with
 * CALSYNC_CONTRACT_URL, a real site (measured on TEC 6.17.1 and 6.17.2).
 */
const CASES: Array<{ what: string; timezone: string; wall: string; utc: string }> = [
  { what: 'repeated, east of UTC: the later (CET)', timezone: 'Europe/Berlin', wall: '2031-10-26 02:30:00', utc: '2031-10-26 01:30:00' },
  { what: 'repeated, east of UTC: the later (AEST)', timezone: 'Australia/Sydney', wall: '2031-04-06 02:30:00', utc: '2031-04-05 16:30:00' },
  { what: 'repeated, west of UTC: the earlier (EDT)', timezone: 'America/New_York', wall: '2031-11-02 01:30:00', utc: '2031-11-02 05:30:00' },
  { what: 'skipped, east of UTC: forward by the gap', timezone: 'Europe/Berlin', wall: '2031-03-30 02:30:00', utc: '2031-03-30 01:30:00' },
  { what: 'skipped, west of UTC: forward by the gap', timezone: 'America/New_York', wall: '2031-03-09 02:30:00', utc: '2031-03-09 07:30:00' },
  { what: 'a fixed zone has one reading (the first 02:30 in Berlin)', timezone: 'Etc/GMT-2', wall: '2031-10-26 02:30:00', utc: '2031-10-26 00:30:00' },
];

for (const version of ['6.17.2', '6.17.1'] as const) {
  describe(`wall times DST repeats or skips (${version} sandbox, or the real site)`, () => {
    let t: Target;
    let c: CalendarClient;
    useTarget(
      (target) => {
        t = target;
        c = target.client();
      },
      { version },
    );

    it.each(CASES)('$timezone $wall, $what', async ({ timezone, wall, utc }) => {
      const ev = await c.events.create({ title: `${t.prefix} ${timezone} ${wall}`, start_date: wall, end_date: wall, timezone } as never);
      t.track('events', ev.id);
      expect([ev.timezone, ev.utc_start_date, ev.utc_end_date]).toEqual([timezone, utc, utc]);
    });
  });
}
