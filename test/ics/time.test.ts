import { describe, expect, it } from 'vitest';
import {
  civilFromDays,
  daysFromCivil,
  fixedOffsetZone,
  formatUtcIso,
  formatWall,
  offsetAt,
  resolveZoneName,
  secondsFromFields,
  utcToWall,
  wallToUtc,
  weekdayOf,
  windowsZoneToIana,
} from '../../src/model/timezones.ts';
import { endUtc, ics, run, runCorpus, startUtc } from './helpers.ts';

const wall = (s: string): number => {
  const m = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)$/.exec(s)!;
  return secondsFromFields(+m[1], +m[2], +m[3], +m[4], +m[5], +m[6])!;
};
const utc = (s: string): number => Date.parse(s) / 1000;

describe('civil dates', () => {
  it('round-trips days, including years 1, 1601 and 9999', () => {
    for (const [y, m, d] of [[1, 1, 1], [1601, 1, 1], [1970, 1, 1], [2000, 2, 29], [2024, 12, 31], [9999, 12, 31]]) {
      expect(civilFromDays(daysFromCivil(y, m, d))).toEqual({ y, m, d });
    }
    expect(daysFromCivil(1970, 1, 1)).toBe(0);
    expect(weekdayOf(daysFromCivil(2024, 1, 1))).toBe(0); // Monday
    expect(secondsFromFields(2017, 10, 32)).toBeUndefined();
    expect(secondsFromFields(2023, 2, 29)).toBeUndefined();
    expect(formatWall(wall('0001-01-01 00:00:00'))).toBe('0001-01-01 00:00:00');
  });
});

describe('zones through Intl', () => {
  it('converts across a DST gap (forward) and fold (earlier instant) like Temporal "compatible"', () => {
    expect(formatUtcIso(wallToUtc('Europe/Berlin', wall('2024-03-31 02:30:00')))).toBe('2024-03-31T01:30:00Z'); // = 03:30 CEST
    expect(formatUtcIso(wallToUtc('Europe/Berlin', wall('2024-10-27 02:30:00')))).toBe('2024-10-27T00:30:00Z'); // first 02:30 (CEST)
    expect(formatUtcIso(wallToUtc('America/New_York', wall('2024-07-04 12:00:00')))).toBe('2024-07-04T16:00:00Z');
    expect(formatWall(utcToWall('Australia/Sydney', utc('2009-04-05T23:30:00Z')))).toBe('2009-04-06 09:30:00');
    expect(offsetAt('Asia/Kolkata', utc('2024-01-01T00:00:00Z'))).toBe(19_800);
  });

  it('does not depend on the host time zone', () => {
    // The suite is also run with TZ=America/Chicago (see the report); nothing here reads the host zone.
    expect(formatUtcIso(wallToUtc('UTC', wall('2024-01-01 00:00:00')))).toBe('2024-01-01T00:00:00Z');
    const d = run(ics('UID:a\nSUMMARY:A\nDTSTART;VALUE=DATE:20240310\nDTEND;VALUE=DATE:20240311')).drafts[0];
    expect([d.start_date, d.end_date, d.timezone]).toEqual(['2024-03-10 00:00:00', '2024-03-10 23:59:59', 'UTC']);
  });
});

describe('zone names', () => {
  it('maps Windows ids and Outlook display labels through CLDR', () => {
    expect(windowsZoneToIana('W. Europe Standard Time')).toBe('Europe/Berlin');
    expect(windowsZoneToIana('Pacific Standard Time')).toBe('America/Los_Angeles');
    expect(windowsZoneToIana('Central Standard Time')).toBe('America/Chicago');
    expect(windowsZoneToIana('(UTC-05:00) Eastern Time (US and Canada)')).toBe('America/New_York');
    expect(windowsZoneToIana('(UTC-05:00) Eastern Time (US & Canada)')).toBe('America/New_York');
    expect(windowsZoneToIana('(GMT+10:00) Canberra, Melbourne, Sydney')).toBe('Australia/Sydney');
    expect(windowsZoneToIana('Canberra, Melbourne, Sydney')).toBe('Australia/Sydney');
    expect(windowsZoneToIana('Kuala Lumpur, Singapore')).toBe('Asia/Singapore');
    expect(windowsZoneToIana('(UTC-03:00) Brasília')).toBe('America/Sao_Paulo');
    expect(windowsZoneToIana('Pacific Time (US & Canada), Tijuana')).toBe('America/Los_Angeles');
    expect(windowsZoneToIana('Greenwich Mean Time:Dublin; Edinburgh; Lisbon; London')).toBe('Europe/London');
  });

  it('resolves IANA ids, legacy aliases and look-alikes', () => {
    expect(resolveZoneName('Europe/Berlin')).toEqual({ zone: 'Europe/Berlin', via: 'iana' });
    expect(resolveZoneName('"Europe/London"')).toEqual({ zone: 'Europe/London', via: 'iana' });
    expect(resolveZoneName('US/Eastern')).toEqual({ zone: 'America/New_York', via: 'alias' });
    expect(resolveZoneName('US-Eastern')?.zone).toBe('America/New_York');
    expect(resolveZoneName('Germany/Berlin')?.zone).toBe('Europe/Berlin');
    expect(resolveZoneName('/mozilla.org/20070129_1/Europe/Berlin')?.zone).toBe('Europe/Berlin');
    expect(resolveZoneName('UTC+2')).toEqual({ zone: 'Etc/GMT-2', via: 'offset' });
    expect(resolveZoneName('Customized Time Zone')).toBeUndefined();
    expect(fixedOffsetZone(-5 * 3600)).toBe('Etc/GMT+5');
    expect(fixedOffsetZone(0)).toBe('UTC');
    expect(fixedOffsetZone(19_800)).toBeUndefined();
  });
});

function vtimezone(tzid: string, std: string, dst?: string): string {
  return [
    'BEGIN:VTIMEZONE', `TZID:${tzid}`,
    'BEGIN:STANDARD', ...std.split('|'), 'END:STANDARD',
    ...(dst ? ['BEGIN:DAYLIGHT', ...dst.split('|'), 'END:DAYLIGHT'] : []),
    'END:VTIMEZONE',
  ].join('\n');
}
const EU_STD = 'DTSTART:16010101T030000|TZOFFSETFROM:+0200|TZOFFSETTO:+0100|RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10';
const EU_DST = 'DTSTART:16010101T020000|TZOFFSETFROM:+0100|TZOFFSETTO:+0200|RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3';
const US_STD = 'DTSTART:16010101T020000|TZOFFSETFROM:-0400|TZOFFSETTO:-0500|RRULE:FREQ=YEARLY;BYDAY=1SU;BYMONTH=11';
const US_DST = 'DTSTART:16010101T020000|TZOFFSETFROM:-0500|TZOFFSETTO:-0400|RRULE:FREQ=YEARLY;BYDAY=2SU;BYMONTH=3';

function withZone(zone: string, tzid: string, extra = '', header = ''): { tz: string; start: string; utc: string } {
  const text = `BEGIN:VCALENDAR\n${header}${zone}\nBEGIN:VEVENT\nUID:x\nSUMMARY:X\nDTSTART;TZID=${tzid}:20240710T120000\nDTEND;TZID=${tzid}:20240710T130000\nEND:VEVENT\n${extra}END:VCALENDAR\n`;
  const d = run(text).drafts[0];
  return { tz: d.timezone, start: d.start_date, utc: startUtc(d) };
}

describe('custom VTIMEZONEs', () => {
  it('matches rules to an IANA zone (Customized Time Zone -> America/New_York, CampusNetZeit -> Europe/Berlin)', () => {
    expect(withZone(vtimezone('Customized Time Zone', US_STD, US_DST), 'Customized Time Zone')).toEqual({ tz: 'America/New_York', start: '2024-07-10 12:00:00', utc: '2024-07-10T16:00:00Z' });
    expect(withZone(vtimezone('CampusNetZeit', EU_STD, EU_DST), 'CampusNetZeit')).toEqual({ tz: 'Europe/Berlin', start: '2024-07-10 12:00:00', utc: '2024-07-10T10:00:00Z' });
  });

  it('prefers X-WR-TIMEZONE and zones the file names elsewhere when several zones share the rules', () => {
    expect(withZone(vtimezone(' 1', EU_STD, EU_DST), ' 1', '', 'X-WR-TIMEZONE:Europe/Paris\n').tz).toBe('Europe/Paris');
    const other = 'BEGIN:VEVENT\nUID:y\nSUMMARY:Y\nDTSTART;TZID=Europe/Madrid:20240101T100000\nEND:VEVENT\n';
    expect(withZone(vtimezone(' 1', EU_STD, EU_DST), ' 1', other).tz).toBe('Europe/Madrid');
    expect(runCorpus('thunderbird-outlook-invite-tzid-space-1-french.ics').drafts.map((d) => d.timezone)).toEqual(['Europe/Paris', 'Europe/Paris']);
  });

  it('uses a Windows label when it agrees with the VTIMEZONE, and Etc/GMT for unnamed fixed offsets', () => {
    expect(withZone(vtimezone('Kuala Lumpur\\, Singapore', 'DTSTART:16010101T000000|TZOFFSETFROM:+0800|TZOFFSETTO:+0800'), '"Kuala Lumpur, Singapore"').tz).toBe('Asia/Singapore');
    expect(withZone(vtimezone('My Office', 'DTSTART:16010101T000000|TZOFFSETFROM:+0300|TZOFFSETTO:+0300'), 'My Office')).toEqual({ tz: 'Etc/GMT-3', start: '2024-07-10 12:00:00', utc: '2024-07-10T09:00:00Z' });
    expect(withZone(vtimezone('', 'DTSTART:16010101T000000|TZOFFSETFROM:+0000|TZOFFSETTO:+0000'), '').tz).toBe('UTC');
    // Not a whole hour: matched against real zones instead.
    expect(withZone(vtimezone('India', 'DTSTART:16010101T000000|TZOFFSETFROM:+0530|TZOFFSETTO:+0530'), 'India').tz).toBe('Asia/Kolkata');
    // A Windows label whose VTIMEZONE disagrees: the rules win.
    expect(withZone(vtimezone('Pacific Standard Time', EU_STD, EU_DST), 'Pacific Standard Time').tz).toBe('Europe/Berlin');
  });

  it('resolves the corpus Windows / custom zones', () => {
    expect(runCorpus('exchange2010-customized-time-zone.ics').drafts[0].timezone).toBe('America/New_York');
    expect(runCorpus('outlook12-kuala-lumpur-tab-folds-x-alt-desc.ics', { maxOccurrencesPerSeries: 1 }).drafts[0].timezone).toBe('Asia/Singapore');
    expect(runCorpus('exchange-cdo-tijuana-request-empty-class.ics').drafts[0].timezone).toBe('America/Los_Angeles');
    expect(runCorpus('emclient-windows-tzid-year-0001-german-tznames.ics').drafts[0].timezone).toBe('Europe/Berlin');
    expect(runCorpus('khal-rdate-period-tzid-crlf.ics').drafts.every((d) => d.timezone === 'America/Chicago')).toBe(true);
    expect(runCorpus('zimbra-etc-gmt-negative-zero-offset.ics').drafts[0].timezone).toBe('UTC');
    expect(runCorpus('lightning-tehran-0330-broken-tzid-param.ics').drafts[0].timezone).toBe('Asia/Tehran');
    const owa = runCorpus('exchange2010-owa-gmt-label-tzid-no-vtimezone.ics').drafts;
    expect(new Set(owa.map((d) => d.timezone))).toEqual(new Set(['Australia/Sydney', 'America/New_York']));
  });

  it('reads unknown TZIDs in the calendar zone, with a warning', () => {
    const r = run(ics('UID:u\nSUMMARY:U\nDTSTART;TZID=Mars/Olympus:20240101T100000'), { defaultTimezone: 'Europe/Vienna' });
    expect([r.drafts[0].timezone, r.drafts[0].start_date]).toEqual(['Europe/Vienna', '2024-01-01 10:00:00']);
    expect(r.summary.warnings.join()).toMatch(/unknown TZID "Mars\/Olympus"/);
  });
});

describe('floating and UTC times', () => {
  it('floating times take X-WR-TIMEZONE, else the defaultTimezone option, keeping their wall time', () => {
    const tv = runCorpus('tvcountdown-floating-x-wr-timezone-us-eastern.ics').drafts;
    expect(tv.every((d) => d.timezone === 'America/New_York')).toBe(true);
    const float = ics('UID:f\nSUMMARY:F\nDTSTART:20240101T100000\nDTEND:20240101T110000');
    expect(run(float).drafts[0]).toMatchObject({ timezone: 'UTC', start_date: '2024-01-01 10:00:00' });
    expect(run(float, { defaultTimezone: 'Asia/Tokyo' }).drafts[0]).toMatchObject({ timezone: 'Asia/Tokyo', start_date: '2024-01-01 10:00:00' });
  });

  it('UTC times keep their instant and are shown in the calendar zone', () => {
    const podio = runCorpus('podio-tab-folding-altrep-junk-after-end.ics').drafts[0];
    expect([podio.timezone, podio.start_date, startUtc(podio)]).toEqual(['Europe/Berlin', '2022-02-22 19:30:00', '2022-02-22T18:30:00Z']);
    const d = run(ics('UID:z\nSUMMARY:Z\nDTSTART:20240701T100000Z\nDTEND:20240701T110000Z'), { defaultTimezone: 'America/Chicago' }).drafts[0];
    expect([d.timezone, d.start_date, d.end_date]).toEqual(['America/Chicago', '2024-07-01 05:00:00', '2024-07-01 06:00:00']);
  });

  it('a DTEND in another zone than DTSTART counts as the instant it is', () => {
    const q = runCorpus('quoted-windows-label-tzid-daily-count-exdate.ics').drafts[0];
    expect([q.timezone, q.start_date, q.end_date]).toEqual(['America/New_York', '2015-07-06 12:00:00', '2015-07-06 16:00:00']);
  });
});

describe('all-day and end times', () => {
  const one = (body: string) => run(ics(`UID:e\nSUMMARY:E\n${body}`));

  it('all-day: DTEND is exclusive; the draft ends 23:59:59 of the last day', () => {
    expect(one('DTSTART;VALUE=DATE:20240301\nDTEND;VALUE=DATE:20240304').drafts[0]).toMatchObject({ all_day: true, start_date: '2024-03-01 00:00:00', end_date: '2024-03-03 23:59:59' });
  });
  it('all-day: DTEND equal to DTSTART, or no DTEND, is one day; DURATION counts days', () => {
    expect(one('DTSTART;VALUE=DATE:20240301\nDTEND;VALUE=DATE:20240301').drafts[0].end_date).toBe('2024-03-01 23:59:59');
    expect(one('DTSTART;VALUE=DATE:20240301').drafts[0].end_date).toBe('2024-03-01 23:59:59');
    expect(one('DTSTART;VALUE=DATE:20240301\nDURATION:P3D').drafts[0].end_date).toBe('2024-03-03 23:59:59');
    expect(one('DTSTART:20240301\nDURATION:PT86400S').drafts[0]).toMatchObject({ all_day: true, end_date: '2024-03-01 23:59:59' });
  });
  it('all-day across a DST change stays whole days, and a TZID on a date is ignored', () => {
    expect(one('DTSTART;TZID=Europe/Berlin;VALUE=DATE:20240330\nDTEND;TZID=Europe/Berlin;VALUE=DATE:20240401').drafts[0]).toMatchObject({
      all_day: true, start_date: '2024-03-30 00:00:00', end_date: '2024-03-31 23:59:59',
    });
  });
  it('timed without DTEND/DURATION is zero length; DURATION days follow the wall clock across DST', () => {
    expect(one('DTSTART;TZID=Europe/Berlin:20240301T100000').drafts[0]).toMatchObject({ start_date: '2024-03-01 10:00:00', end_date: '2024-03-01 10:00:00' });
    const d = one('DTSTART;TZID=Europe/Berlin:20240330T100000\nDURATION:P1DT1H').drafts[0];
    expect([d.end_date, endUtc(d)]).toEqual(['2024-03-31 11:00:00', '2024-03-31T09:00:00Z']);
  });
  it('an end before the start is a failure naming the event, never a draft', () => {
    const timed = one('DTSTART:20240301T100000Z\nDTEND:20240301T090000Z');
    expect(timed.drafts).toHaveLength(0);
    expect(timed.failures[0].reason).toMatch(/^VEVENT #1 at line \d+ \(UID e\): end is before start/);
    const allDay = one('DTSTART;VALUE=DATE:20240305\nDTEND;VALUE=DATE:20240301');
    expect(allDay.failures[0].reason).toMatch(/end is before start/);
    expect(one('DTSTART:20240301T100000Z\nDURATION:-PT1H').failures[0].reason).toMatch(/negative DURATION/);
  });
  it('keeps odd seconds and multi-day floating spans', () => {
    const f = runCorpus('floating-times-multiday-no-prodid.ics').drafts[0];
    expect(f.start_date.endsWith(':01')).toBe(true);
    expect(f.end_date > f.start_date).toBe(true);
  });
});

describe('regression: a 1 MB line swallowed by an unclosed TZID quote (found by the fuzz suite)', () => {
  it('resolves zone names in linear time and still reads the events around it', async () => {
    const { normalizeIcs } = await import('../../src/sources/ics/index.ts');
    const ics = [
      'BEGIN:VCALENDAR', 'BEGIN:VEVENT', 'UID:ok-1', 'DTSTART:20250101T100000Z', 'SUMMARY:fine', 'END:VEVENT',
      'BEGIN:VEVENT', 'UID:bad', `DTSTART;TZID="(UTC-X-JUNK:${'a'.repeat(1024 * 1024)}`, 'SUMMARY:broken', 'END:VEVENT',
      'BEGIN:VEVENT', 'UID:ok-2', 'DTSTART:20250102T100000Z', 'SUMMARY:fine too', 'END:VEVENT', 'END:VCALENDAR', '',
    ].join('\r\n');
    const t = performance.now();
    const { items } = normalizeIcs(new TextEncoder().encode(ics), { sourceKey: 'r', sourceName: 'r.ics', window: { from: new Date('2024-01-01'), to: new Date('2026-01-01') } });
    expect(performance.now() - t).toBeLessThan(3000);
    expect(items.filter((i) => i.ok).map((i) => (i.ok ? i.draft.title : ''))).toEqual(expect.arrayContaining(['fine', 'fine too']));
  });
});
