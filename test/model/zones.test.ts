import { describe, expect, it } from 'vitest';
import type { EventRecord } from '../../src/api/index.ts';
import { eventTiming } from '../../src/export/timing.ts';
import { formatUtcIso, isValidZone, resolveZoneName } from '../../src/model/timezones.ts';
import { parseZone } from '../../src/sources/csv/zones.ts';
import { bytesOpen, collect, draftAt, failureAt, opts } from '../csv/helpers.ts';
import { ics, run, startUtc } from '../ics/helpers.ts';

/**
 * One table of zone names, read through each entry point that meets them: an ICS TZID, a CSV time-zone
 * cell, and a site record's `timezone` as the export reads it. They share one zone module
 * (src/model/timezones.ts); this table is how we know they agree. Each row: the name as written, the
 * zone calsync writes (null: not a zone), and the UTC instant of 2024-07-10 12:00 wall time in it.
 */
interface Row {
  name: string;
  zone: string | null;
  utc?: string;
}

const TABLE: Row[] = [
  { name: 'UTC+3.5', zone: 'UTC+3.5', utc: '2024-07-10T08:30:00Z' },
  { name: 'UTC-3.5', zone: 'UTC-3.5', utc: '2024-07-10T15:30:00Z' },
  { name: 'UTC+05:30', zone: 'UTC+5.5', utc: '2024-07-10T06:30:00Z' },
  { name: 'UTC+5.75', zone: 'UTC+5.75', utc: '2024-07-10T06:15:00Z' },
  { name: '+0530', zone: 'UTC+5.5', utc: '2024-07-10T06:30:00Z' },
  { name: 'UTC+5', zone: 'Etc/GMT-5', utc: '2024-07-10T07:00:00Z' },
  { name: 'GMT-04:00', zone: 'Etc/GMT+4', utc: '2024-07-10T16:00:00Z' },
  { name: 'UTC', zone: 'UTC', utc: '2024-07-10T12:00:00Z' },
  { name: 'Etc/UTC', zone: 'UTC', utc: '2024-07-10T12:00:00Z' },
  { name: 'US/Eastern', zone: 'America/New_York', utc: '2024-07-10T16:00:00Z' },
  { name: 'europe/berlin', zone: 'Europe/Berlin', utc: '2024-07-10T10:00:00Z' },
  { name: 'Europe/Nicosia', zone: 'Europe/Nicosia', utc: '2024-07-10T09:00:00Z' },
  { name: 'Asia/Kolkata', zone: 'Asia/Kolkata', utc: '2024-07-10T06:30:00Z' },
  { name: 'W. Europe Standard Time', zone: 'Europe/Berlin', utc: '2024-07-10T10:00:00Z' },
  { name: 'Eastern Standard Time', zone: 'America/New_York', utc: '2024-07-10T16:00:00Z' },
  { name: '(UTC+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna', zone: 'Europe/Berlin', utc: '2024-07-10T10:00:00Z' },
  { name: '(UTC-05:00) Eastern Time (US & Canada)', zone: 'America/New_York', utc: '2024-07-10T16:00:00Z' },
  // Unknown names and junk: not a zone anywhere.
  { name: 'Mars/Olympus', zone: null },
  { name: 'Customized Time Zone', zone: null },
  { name: 'UTC+3 and a half', zone: null },
  { name: 'UTC+15', zone: null },
  { name: 'UTC+3:20', zone: null },
  { name: 'EST5EDT8', zone: null },
  { name: 'x'.repeat(300), zone: null },
];

const WALL = '2024-07-10 12:00:00';
const icsParam = (name: string): string => (/[,;:]/.test(name) ? `"${name}"` : name);

function viaIcs(name: string) {
  const r = run(ics(`UID:z\nSUMMARY:Z\nDTSTART;TZID=${icsParam(name)}:20240710T120000\nDURATION:PT1H`), { defaultTimezone: 'Asia/Tokyo' });
  return { draft: r.drafts[0], warnings: r.summary.warnings };
}

async function viaCsv(name: string) {
  const cell = `"${name.replace(/"/g, '""')}"`;
  return collect(bytesOpen(`Title,Start Date,Time Zone\nZ,${WALL},${cell}\n`), opts({ defaultTimezone: 'Asia/Tokyo' }));
}

function viaExport(zone: string) {
  const rec = { id: 1, status: 'publish', slug: 's', title: 't', start_date: WALL, end_date: WALL, timezone: zone } as EventRecord;
  return formatUtcIso(eventTiming(rec).startSec);
}

describe('one zone table, read the same by ICS, CSV and export', () => {
  describe.each(TABLE)('$name', ({ name, zone, utc }) => {
    it('the zone module', () => {
      expect(resolveZoneName(name)?.zone ?? null).toBe(zone);
    });

    it('an ICS TZID', () => {
      const { draft, warnings } = viaIcs(name);
      if (zone === null) {
        // An unknown TZID reads as the calendar's zone, and says so.
        expect(draft.timezone).toBe('Asia/Tokyo');
        expect(warnings.join('\n')).toContain('unknown TZID');
        return;
      }
      expect(draft.timezone).toBe(zone);
      expect(draft.start_date).toBe(WALL);
      expect(startUtc(draft)).toBe(utc);
    });

    it('a CSV time-zone cell', async () => {
      expect(parseZone(name).ok).toBe(zone !== null);
      const c = await viaCsv(name);
      if (zone === null) {
        expect(failureAt(c, 2).reason).toMatch(/^Time Zone: '.*' is not a (time zone|valid UTC offset)/);
        return;
      }
      const d = draftAt(c, 2);
      expect(d.timezone).toBe(zone);
      expect(startUtc(d)).toBe(utc);
    });

    it('the export, reading the zone back from the site', () => {
      if (zone === null) return;
      expect(isValidZone(zone)).toBe(true);
      expect(viaExport(zone)).toBe(utc);
    });
  });

  it('the export reads the site\'s own offset forms (UTC+5, UTC-3.5) as the offsets they name', () => {
    expect(viaExport('UTC+5')).toBe('2024-07-10T07:00:00Z');
    expect(viaExport('UTC-3.5')).toBe('2024-07-10T15:30:00Z');
    expect(viaExport('UTC+3.5')).toBe('2024-07-10T08:30:00Z');
  });
});
