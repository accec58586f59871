import { describe, expect, it } from 'vitest';
import { corpusBytes, corpusEvents, corpusTree, endUtc, runCorpus, startUtc } from './helpers.ts';
import type { EventDraft } from '../../src/model/draft.ts';
import { NO_TITLE } from '../../src/sources/ics/normalize.ts';
import { plainToHtml } from '../../src/sources/ics/text.ts';

/**
 * One test per section of test/fixtures/third-party/corpus/EXPECTATIONS.md (the ICS part, sections 1-17), named after
 * the file. Times are checked both as wall time in the draft's zone and as the UTC instant.
 */
const byStart = (a: EventDraft, b: EventDraft): number => startUtc(a).localeCompare(startUtc(b));
const spans = (ds: EventDraft[]): string[] => [...ds].sort(byStart).map((d) => `${startUtc(d)}/${endUtc(d)}`);

describe('EXPECTATIONS.md (ICS)', () => {
  it('§1 google-kiev-daily-until-recurrence-id.ics: override listed before its master replaces the 08-26 instance', () => {
    const { drafts, summary } = runCorpus('google-kiev-daily-until-recurrence-id.ics');
    expect(summary.vevents).toBe(2);
    expect(summary.calendarName).toBe('ical');
    expect(drafts).toHaveLength(4);
    expect(spans(drafts)).toEqual(['25', '26', '27', '28'].map((d) => `2016-08-${d}T11:00:00Z/2016-08-${d}T12:00:00Z`));
    const sorted = [...drafts].sort(byStart);
    expect(sorted.map((d) => d.title)).toEqual(['repeated', 'bla bla', 'repeated', 'repeated']);
    expect(sorted.every((d) => d.timezone === 'Europe/Kiev' && d.start_date.endsWith('14:00:00') && d.end_date.endsWith('15:00:00'))).toBe(true);
    expect(new Set(drafts.map((d) => d.identity)).size).toBe(4);
  });

  it('§2 davx5-weekly-utc-exdates-across-dst.ics: 9 UTC EXDATEs remove local instances on both sides of DST', () => {
    const { drafts } = runCorpus('davx5-weekly-utc-exdates-across-dst.ics');
    expect(drafts).toHaveLength(7);
    const days = ['2019-10-29', '2019-11-12', '2019-12-10', '2020-01-07', '2020-01-14', '2020-01-21', '2020-01-28'];
    expect([...drafts].sort(byStart).map((d) => [d.start_date, d.end_date, d.timezone])).toEqual(
      days.map((d) => [`${d} 16:15:00`, `${d} 17:45:00`, 'Europe/Berlin']),
    );
    expect(spans(drafts)).toEqual(days.map((d) => `${d}T15:15:00Z/${d}T16:45:00Z`));
    expect(drafts.some((d) => d.start_date.startsWith('2019-10-15'))).toBe(false);
    expect(drafts.every((d) => d.title === 'Test' && d.venue?.venue === 'Example')).toBe(true);
  });

  it('§3 weekly-until-utc-override-and-cancelled-instance.ics: UTC RECURRENCE-IDs, moved and cancelled instances', () => {
    const { drafts } = runCorpus('weekly-until-utc-override-and-cancelled-instance.ics');
    const active = drafts.filter((d) => !d.cancelled).sort(byStart);
    expect(active.map((d) => [d.start_date, d.end_date])).toEqual([
      ['2014-06-30 07:00:00', '2014-06-30 12:00:00'],
      ['2014-07-07 09:00:00', '2014-07-07 14:00:00'],
      ['2014-07-21 07:00:00', '2014-07-21 12:00:00'],
      ['2014-07-28 07:00:00', '2014-07-28 12:00:00'],
      ['2014-08-04 07:00:00', '2014-08-04 12:00:00'],
    ]);
    expect(active.every((d) => d.timezone === 'Europe/Berlin' && d.title === 'Arbeit')).toBe(true);
    expect(startUtc(active[1])).toBe('2014-07-07T07:00:00Z');
    const cancelled = drafts.filter((d) => d.cancelled);
    expect(cancelled).toHaveLength(1);
    expect(cancelled[0].start_date).toBe('2014-07-14 07:00:00');
    // The moved instance keeps the identity of the slot it came from.
    expect(active[1].identity).toBe('event_rrule_recurrence_id|2014-07-07T05:00:00Z');
  });

  it('§4 gototraining-daily-interval12-count11-moved-overrides.ics: instances moved months past the rule span', () => {
    const { drafts } = runCorpus('gototraining-daily-interval12-count11-moved-overrides.ics');
    expect(drafts).toHaveLength(11);
    const sorted = [...drafts].sort(byStart);
    expect(sorted.map((d) => startUtc(d))).toEqual([
      '2018-01-19T08:30:00Z', '2018-02-01T08:00:00Z', '2018-03-21T08:00:00Z', '2018-04-16T07:00:00Z', '2018-05-03T07:00:00Z',
      '2018-07-23T07:00:00Z', '2018-08-09T07:00:00Z', '2018-09-24T07:00:00Z', '2018-10-18T07:00:00Z', '2018-11-05T08:00:00Z',
      '2018-12-03T08:00:00Z',
    ]);
    expect([sorted[0].start_date, sorted[0].end_date]).toEqual(['2018-01-19 09:30:00', '2018-01-19 10:30:00']);
    for (const d of sorted.slice(1)) {
      expect(d.start_date.slice(11)).toBe('09:00:00');
      expect(d.end_date.slice(11)).toBe('11:00:00');
    }
    const original = ['01-31', '02-12', '02-24', '03-08', '03-20', '04-01', '04-13', '04-25', '05-07', '05-19'];
    expect(drafts.some((d) => original.some((o) => d.start_date.startsWith(`2018-${o}`)))).toBe(false);
    expect(drafts.every((d) => d.title === 'Meeting' && d.timezone === 'Europe/Amsterdam')).toBe(true);
  });

  it('§5 apple-ical2-brisbane-exdate.ics: COUNT counts the excluded instances', () => {
    const { drafts, summary } = runCorpus('apple-ical2-brisbane-exdate.ics');
    expect(summary.calendarName).toBe('EXDATE Example');
    expect(spans(drafts)).toEqual(['01', '02', '05', '06', '07'].map((d) => `2006-01-${d}T02:00:00Z/2006-01-${d}T03:00:00Z`));
    expect(drafts.every((d) => d.timezone === 'Australia/Brisbane' && d.start_date.endsWith('12:00:00') && d.end_date.endsWith('13:00:00'))).toBe(true);
    expect(corpusEvents('apple-ical2-brisbane-exdate.ics')[0].description).toBe('This is a simple repeating event with a couple of days excluded.');
    expect(drafts[0].description).toBe('This is a simple repeating event with a couple of days excluded.');
  });

  it('§6 google-madrid-monthly-first-thursday-two-overrides.ics: two overrides move instances a day later', () => {
    const { drafts } = runCorpus('google-madrid-monthly-first-thursday-two-overrides.ics');
    const sorted = [...drafts].sort(byStart);
    expect(sorted.map((d) => startUtc(d))).toEqual([
      '2020-10-01T07:30:00Z', '2020-11-05T08:30:00Z', '2020-12-04T08:30:00Z', '2021-01-08T08:30:00Z', '2021-02-04T08:30:00Z',
    ]);
    expect(sorted.map((d) => d.title)).toEqual([
      'Event with RECURRENCE-ID property', 'Event with RECURRENCE-ID property', 'This occurrence has been changed',
      'This is another occurrence that has been changed', 'Event with RECURRENCE-ID property',
    ]);
    expect(sorted.every((d) => d.start_date.endsWith('09:30:00') && d.end_date.endsWith('13:30:00'))).toBe(true);
    expect(drafts.some((d) => d.start_date.startsWith('2020-12-03') || d.start_date.startsWith('2021-01-07'))).toBe(false);
  });

  it('§7 windows-calendar-utf16le-bom-crlf.ics: UTF-16LE with BOM', () => {
    expect([...corpusBytes('windows-calendar-utf16le-bom-crlf.ics').slice(0, 2)]).toEqual([0xff, 0xfe]);
    const { drafts, summary } = runCorpus('windows-calendar-utf16le-bom-crlf.ics');
    expect(summary.encoding).toBe('utf-16le');
    const prodid = corpusTree('windows-calendar-utf16le-bom-crlf.ics')[0].props.find((p) => p.name === 'PRODID')?.value;
    expect(prodid).toBe('-//Microsoft Corporation//Windows Calendar 1.0//EN');
    expect(summary.vevents).toBe(3);
    expect(drafts).toHaveLength(10);
    const count = (t: string): number => drafts.filter((d) => d.title === t).length;
    expect([count('Daily Debug'), count('Weekly Debug'), count('Weekly by 2times')]).toEqual([7, 1, 2]);
    expect(drafts.filter((d) => d.title === 'Daily Debug').map((d) => d.start_date.slice(0, 10)).sort()).toEqual(
      ['04', '05', '06', '07', '08', '09', '10'].map((d) => `2009-12-${d}`),
    );
    expect(drafts.filter((d) => d.title === 'Weekly by 2times').map((d) => d.start_date).sort()).toEqual(['2009-12-04 02:00:00', '2009-12-11 02:00:00']);
    expect(drafts.every((d) => d.timezone === 'Europe/Paris' && d.start_date.endsWith('02:00:00') && d.end_date.endsWith('02:30:00'))).toBe(true);
    expect(drafts.every((d) => startUtc(d).endsWith('T01:00:00Z') && endUtc(d).endsWith('T01:30:00Z'))).toBe(true);
  });

  it('§8 campusnet-university-timetable-utf16le-no-bom.ics: sniffed UTF-16LE, custom VTIMEZONE CampusNetZeit', () => {
    expect([...corpusBytes('campusnet-university-timetable-utf16le-no-bom.ics').slice(0, 4)]).toEqual([0x42, 0x00, 0x45, 0x00]);
    const { drafts, summary } = runCorpus('campusnet-university-timetable-utf16le-no-bom.ics');
    expect(summary.encoding).toBe('utf-16le');
    const prodid = corpusTree('campusnet-university-timetable-utf16le-no-bom.ics')[0].props.find((p) => p.name === 'PRODID')?.value;
    expect(prodid).toBe('-//Datenlotsen Informationssysteme GmbH//CampusNet//DE');
    expect(summary.vevents).toBe(15);
    expect(summary.series).toBe(0);
    expect(drafts).toHaveLength(15);
    // CampusNetZeit has EU rules: resolved to a zone with the same offsets (+02:00 in July 2019).
    expect(drafts.every((d) => d.timezone === 'Europe/Berlin')).toBe(true);
    expect(drafts.every((d) => d.start_date >= '2019-07-02' && d.start_date < '2019-07-30')).toBe(true);
    const first = drafts[0];
    expect(first.title).toBe('Übungen zu Interaktionsdesign');
    expect([first.start_date, first.end_date]).toEqual(['2019-07-02 12:15:00', '2019-07-02 13:45:00']);
    expect([startUtc(first), endUtc(first)]).toEqual(['2019-07-02T10:15:00Z', '2019-07-02T11:45:00Z']);
    expect(corpusEvents('campusnet-university-timetable-utf16le-no-bom.ics')[0].location).toBe('D-118/119;G-203');
    expect(first.venue).toMatchObject({ venue: 'D-118/119;G-203', identity: 'd-118/119;g-203' });
    const last = drafts[drafts.length - 1];
    expect(last.title).toBe('Klausur: Interaktionsdesign');
    expect([startUtc(last), endUtc(last)]).toEqual(['2019-07-29T07:30:00Z', '2019-07-29T09:30:00Z']);
    expect(last.start_date).toBe('2019-07-29 09:30:00');
    expect(last.venue?.venue).toBe('ESA A');
    expect(drafts.every((d) => d.categories.length === 0 && d.organizers.length === 0)).toBe(true);
  });

  it('§9 meetup-phoenix-geo-escaped-desc.ics: a fold splitting the \\n escape, GEO, escaped LOCATION', () => {
    const { drafts, summary } = runCorpus('meetup-phoenix-geo-escaped-desc.ics');
    expect(summary.calendarName).toBe('My Meetups');
    expect(drafts).toHaveLength(1);
    const d = drafts[0];
    expect(d.identity).toBe('event_nsmxnyppbfc@meetup.com');
    expect(d.title).toBe('Phoenix Drupal User Group Monthly Meetup');
    expect([d.timezone, d.start_date, d.end_date]).toEqual(['America/Phoenix', '2011-11-09 19:00:00', '2011-11-09 21:00:00']);
    expect([startUtc(d), endUtc(d)]).toEqual(['2011-11-10T02:00:00Z', '2011-11-10T04:00:00Z']);
    expect(d.venue?.geo).toEqual({ lat: 33.56, lng: -111.9 });
    const raw = corpusEvents('meetup-phoenix-geo-escaped-desc.ics')[0];
    expect(raw.location).toBe('Open Source Project Tempe (1415 E University Dr. #103A, Tempe, AZ 85281)');
    expect(d.venue).toMatchObject({ venue: 'Open Source Project Tempe', address: '1415 E University Dr. #103A, Tempe, AZ 85281' });
    const text =
      'Phoenix Drupal User Group\nWednesday, November 9 at 7:00 PM\n\nCustomizing node display with template pages in Drupal 6\n\n' +
      ' Jon Sheehan and Matthew Berry of the Office of Knowledge Enterprise Development (OKED) Knowledge...\n\n' +
      'Details: http://www.meetup.com/Phoenix-Drupal-User-Group/events/33627272/';
    expect(raw.description).toBe(text);
    expect(d.description).toBe(plainToHtml(text));
    const url = corpusTree('meetup-phoenix-geo-escaped-desc.ics')[0].props.find((p) => p.name === 'X-ORIGINAL-URL')?.value;
    expect(url).toBe('http://www.meetup.com/events/ical/8333638/dfdba2e4692160753404f737feace78d526ff0ce/going');
  });

  it('§10 exchange2010-windows-tzids-exdate-list.ics: Windows zone names, folded UIDs, malformed DTSTART', () => {
    const tree = corpusTree('exchange2010-windows-tzids-exdate-list.ics');
    const tzids = tree[0].children.filter((c) => c.name === 'VTIMEZONE').map((c) => c.props.find((p) => p.name === 'TZID')?.value);
    expect(tzids).toEqual([
      'W. Europe Standard Time', 'Pacific Standard Time', 'GMT Standard Time', 'Eastern Standard Time', 'Jordan Standard Time',
      'UTC', 'Central Standard Time', 'US Mountain Standard Time',
    ]);
    const raws = corpusEvents('exchange2010-windows-tzids-exdate-list.ics');
    expect(raws).toHaveLength(4);
    expect(raws.map((r) => r.uid)).toContain(
      '040000008200E00074C5B7101A82E0080000000070DE40F38786D601000000000000000010000000D2A9BA8A3668CA4ABB2CC6838268179F',
    );
    expect(raws.every((r) => /^[0-9A-F]{112}$/.test(r.uid ?? ''))).toBe(true);

    const { drafts, failures, summary } = runCorpus('exchange2010-windows-tzids-exdate-list.ics');
    expect(summary.accounting.drafted + summary.accounting.failed).toBe(4);
    const test = drafts.filter((d) => d.title === 'test');
    expect(test).toHaveLength(1);
    expect([test[0].timezone, test[0].start_date, startUtc(test[0]), endUtc(test[0])]).toEqual(['Europe/Berlin', '2020-09-10 09:00:00', '2020-09-10T07:00:00Z', '2020-09-10T07:30:00Z']);
    // The value-less DTSTART must not crash anything (no count asserted); we recover it or fail it by name.
    const jira = drafts.filter((d) => d.title === "Log Yesterday's Jira time");
    expect(jira.length + failures.filter((f) => f.reason.includes('DTSTART')).length).toBeGreaterThan(0);
    const s1 = drafts.filter((d) => d.title === 'Not the actual summary 1');
    expect([s1[0].timezone, startUtc(s1[0]), endUtc(s1[0])]).toEqual(['America/Los_Angeles', '2020-09-15T15:30:00Z', '2020-09-15T16:30:00Z']);
    const series = drafts.filter((d) => d.title === 'Not the actual summary either').sort(byStart);
    expect(series).toHaveLength(135);
    expect([startUtc(series[0]), endUtc(series[0])]).toEqual(['2020-07-07T19:00:00Z', '2020-07-07T19:30:00Z']);
    expect(startUtc(series[series.length - 1])).toBe('2021-03-09T20:00:00Z');
    expect(series[series.length - 1].start_date).toBe('2021-03-09 12:00:00');
    for (const x of ['07-21', '07-23', '07-28', '08-13', '08-25', '09-03']) expect(series.some((d) => d.start_date.startsWith(`2020-${x}`))).toBe(false);
    const raw = raws.find((r) => r.summary === 'Not the actual summary either')!;
    expect(raw.location).toBe('https://bluejeans.com/7999979999');
    expect(raw.sequence).toBe(3);
    // A location that is only a URL is an online meeting: no venue, the URL becomes the website.
    expect(series[0].venue).toBeUndefined();
    expect(series[0].website).toBe('https://bluejeans.com/7999979999');
  });

  it('§11 exchange2010-allday-weekly-moved-override.ics: all-day series, DATE-TIME RECURRENCE-ID, UTC UNTIL', () => {
    const { drafts } = runCorpus('exchange2010-allday-weekly-moved-override.ics');
    expect([51, 52]).toContain(drafts.length);
    expect(drafts.every((d) => d.all_day && d.start_date.slice(0, 10) === d.end_date.slice(0, 10))).toBe(true);
    expect(drafts.every((d) => d.start_date.endsWith('00:00:00') && d.end_date.endsWith('23:59:59'))).toBe(true);
    expect(drafts.every((d) => d.title === 'Exchange Recurring Test')).toBe(true);
    const days = drafts.map((d) => d.start_date.slice(0, 10)).sort();
    expect(days[0]).toBe('2026-02-19');
    expect(days).not.toContain('2026-02-26');
    expect(days).toContain('2026-02-27');
    expect(['2026-08-13', '2026-08-18']).toContain(days[days.length - 1]);
    const moved = drafts.find((d) => d.start_date.startsWith('2026-02-27'))!;
    expect(moved.identity).toBe('exchange-moved-recurrence|2026-02-26');
    expect(corpusEvents('exchange2010-allday-weekly-moved-override.ics')[0].description).toBe('\n');
    expect(moved.description).toBeUndefined();
  });

  it('§12 sunbird-utf8-bom-swedish-name-value-folding.ics: BOM, name / param / value folded apart', () => {
    expect([...corpusBytes('sunbird-utf8-bom-swedish-name-value-folding.ics').slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const { drafts, summary } = runCorpus('sunbird-utf8-bom-swedish-name-value-folding.ics');
    expect(summary.vevents).toBe(6);
    const tree = corpusTree('sunbird-utf8-bom-swedish-name-value-folding.ics');
    expect(tree[0].children.filter((c) => c.name === 'VTODO').map((c) => c.props.find((p) => p.name === 'SUMMARY')?.value)).toEqual(['Städa garaget']);
    expect(tree[0].children.some((c) => c.name === 'VTIMEZONE')).toBe(false);
    const get = (t: string): EventDraft => drafts.find((d) => d.title === t)!;
    expect([get('God Jul').start_date, get('God Jul').end_date, get('God Jul').all_day]).toEqual(['2006-12-24 00:00:00', '2006-12-24 23:00:00', false]);
    expect([get('Möte kontoret').start_date, get('Möte kontoret').end_date, get('Möte kontoret').all_day]).toEqual(['2006-10-31 00:00:00', '2006-10-31 23:59:59', true]);
    expect([get('Swedish chars and letters').start_date, get('Swedish chars and letters').end_date]).toEqual(['2006-11-01 09:00:00', '2006-11-01 10:00:00']);
    expect([get('Sova').start_date, get('Sova').end_date, get('Sova').venue?.venue]).toEqual(['2006-11-01 10:00:00', '2006-11-01 11:00:00', 'Sängen']);
    expect([get('Nu måste jag gå hem').start_date, get('Nu måste jag gå hem').end_date]).toEqual(['2006-11-09 23:00:00', '2006-11-11 00:00:00']);
    expect([get('Mamma fyller år').start_date, get('Mamma fyller år').end_date, get('Mamma fyller år').all_day, get('Mamma fyller år').venue?.venue]).toEqual([
      '2006-11-09 00:00:00', '2006-11-09 23:59:59', true, 'Västerås',
    ]);
    const raw = corpusEvents('sunbird-utf8-bom-swedish-name-value-folding.ics');
    expect(raw.find((r) => r.summary === 'Möte kontoret')!.description).toBe(
      'Skall träffa liselotte och diskutera vår ekonomi. Och se över våra överenskommelser.\n',
    );
    expect(raw.find((r) => r.summary === 'Swedish chars and letters')!.description).toBe('This is Swedish chars: åäö and ÅÄÖ');
    expect(raw.every((r) => r.dtstart?.kind !== 'utc' && !(r.dtstart?.kind === 'local' && r.dtstart.tzid))).toBe(true);
  });

  it('§13 mozilla-latin1-encoded-floating.ics: ISO-8859-1 bytes, no UIDs, floating times', () => {
    const bytes = corpusBytes('mozilla-latin1-encoded-floating.ics');
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(bytes)).toThrow();
    const { drafts, summary } = runCorpus('mozilla-latin1-encoded-floating.ics');
    expect(summary.encoding).toBe('windows-1252');
    expect(summary.withoutUid).toBe(4);
    expect(drafts.map((d) => [d.title, d.start_date, d.end_date])).toEqual([
      ['Event One', '2019-01-01 15:00:00', '2019-01-01 16:00:00'],
      ['Event Four', '2019-01-01 18:00:00', '2019-01-01 19:00:00'],
      ['Event Three', '2019-01-01 17:00:00', '2019-01-01 18:00:00'],
      ['Event Två', '2019-01-01 16:00:00', '2019-01-01 17:00:00'],
    ]);
    // Floating times keep their wall time in the default zone; identities come from content.
    expect(drafts.every((d) => d.timezone === 'UTC' && d.identity.startsWith('nouid|'))).toBe(true);
    expect(runCorpus('mozilla-latin1-encoded-floating.ics', { defaultTimezone: 'Europe/Stockholm' }).drafts.map((d) => [d.timezone, d.start_date, d.identity])).toEqual(
      drafts.map((d) => ['Europe/Stockholm', d.start_date, d.identity]),
    );
  });

  it('§14 hackerpublicradio-rdate-only-recurrence.ics: RDATE-only series, first RDATE = DTSTART counted once', () => {
    const { drafts, summary } = runCorpus('hackerpublicradio-rdate-only-recurrence.ics');
    expect(summary.withoutUid).toBe(1);
    expect(summary.series).toBe(1);
    const days = ['2013-08-03', '2013-08-31', '2013-10-05', '2013-11-02', '2013-11-30', '2014-01-04', '2014-02-01', '2014-03-01', '2014-04-05', '2014-05-03', '2014-05-31', '2014-07-05'];
    expect(spans(drafts)).toEqual(days.map((d) => `${d}T19:00:00Z/${d}T21:00:00Z`));
    expect(drafts.every((d) => d.title === 'HPR Community News' && d.venue?.venue === 'mumble.openspeak.cc port: 64747')).toBe(true);
    expect(new Set(drafts.map((d) => d.identity)).size).toBe(12);
  });

  it('§15 outlook11-canberra-weekday-standup-valarm.ics: quoted label TZID, DST end in April', () => {
    const window = { from: new Date('2009-03-01T00:00:00Z'), to: new Date('2009-05-01T00:00:00Z') };
    const { drafts } = runCorpus('outlook11-canberra-weekday-standup-valarm.ics', { window });
    const sorted = [...drafts].sort(byStart);
    expect(sorted.every((d) => d.timezone === 'Australia/Sydney' && d.title === 'Standup')).toBe(true);
    expect(sorted.slice(0, 5).map((d) => d.start_date)).toEqual(['10', '11', '12', '13', '16'].map((x) => `2009-03-${x} 09:30:00`));
    expect([startUtc(sorted[0]), endUtc(sorted[0])]).toEqual(['2009-03-09T22:30:00Z', '2009-03-09T22:45:00Z']);
    const apr3 = sorted.find((d) => d.start_date.startsWith('2009-04-03'))!;
    const apr6 = sorted.find((d) => d.start_date.startsWith('2009-04-06'))!;
    expect(startUtc(apr3)).toBe('2009-04-02T22:30:00Z');
    expect([apr6.start_date, startUtc(apr6)]).toEqual(['2009-04-06 09:30:00', '2009-04-05T23:30:00Z']);
    expect(sorted.every((d) => d.start_date.endsWith('09:30:00') && d.end_date.endsWith('09:45:00'))).toBe(true);
  });

  it('§16 horde-truncated-missing-end-vevent-vcalendar.ics: truncated file, the one event recovered', () => {
    const { drafts, failures, summary } = runCorpus('horde-truncated-missing-end-vevent-vcalendar.ics');
    expect(failures).toHaveLength(0);
    expect(drafts).toHaveLength(1);
    const d = drafts[0];
    expect([d.title, startUtc(d), endUtc(d)]).toEqual(['Urlaub', '2009-01-02T06:00:00Z', '2009-01-02T12:30:00Z']);
    expect(d.organizers).toEqual([{ identity: 'roellig@de', organizer: 'roellig@de', email: 'roellig@de' }]);
    expect(d.categories).toEqual([{ name: 'Urlaub' }]);
    expect(d.venue?.venue).toBe('Urlaub');
    expect(corpusEvents('horde-truncated-missing-end-vevent-vcalendar.ics')[0].status).toBe('CONFIRMED');
    expect(summary.warnings.some((w) => /no END:VEVENT/.test(w))).toBe(true);
  });

  it('§17 thunderbird-crlf-vtimezone-valarm.ics and etar-android-offline-calendar-crlf.ics: Europe/London in BST', () => {
    const tb = runCorpus('thunderbird-crlf-vtimezone-valarm.ics').drafts;
    expect(tb.map((d) => [d.title, d.timezone, d.start_date, d.end_date, startUtc(d), endUtc(d)])).toEqual([
      ['event with alarms', 'Europe/London', '2024-10-23 15:00:00', '2024-10-23 16:00:00', '2024-10-23T14:00:00Z', '2024-10-23T15:00:00Z'],
    ]);
    const etar = runCorpus('etar-android-offline-calendar-crlf.ics').drafts;
    expect(etar.map((d) => [d.title, d.timezone, startUtc(d), endUtc(d)])).toEqual([
      ['event with alarms android', 'Europe/London', '2024-10-05T12:00:00Z', '2024-10-05T13:00:00Z'],
    ]);
  });

  it('regression: the three corpus files with a VEVENT without SUMMARY failed it ("no SUMMARY"); now imported as "(No title)" with a warning', () => {
    const cases: Array<[string, number, string[]]> = [
      ['exchange2010-blank-tzid-attach-cid.ics', 1, ['VEVENT #1 at line 18 (UID t21ocubdt9jagerldbkak7uhcg@google.com)']],
      ['outlook-brasilia-non-ascii-tzid-crlf-no-uid.ics', 1, ['VEVENT #1 at line 19']],
      [
        'google-2006-australian-holidays-tzid-on-date-duration.ics',
        2,
        ['VEVENT #27 at line 465 (UID ou0bm7s8e08qepmh6dkm3na4t0@google.com)', 'VEVENT #46 at line 792 (UID l1th84lgaos3tabvcec3prkgn8@google.com)'],
      ],
    ];
    for (const [file, untitled, named] of cases) {
      const { drafts, failures, summary } = runCorpus(file);
      expect(failures, file).toEqual([]);
      expect(summary.accounting.failed, file).toBe(0);
      expect(drafts.filter((d) => d.title === NO_TITLE), file).toHaveLength(untitled);
      expect(summary.warnings.filter((w) => /no SUMMARY/.test(w)), file).toEqual(named.map((n) => `${n}: no SUMMARY; imported as "${NO_TITLE}"`));
    }
  });
});
