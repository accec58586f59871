import { describe, expect, it } from 'vitest';
import { daysFromCivil, formatWall } from '../../src/model/timezones.ts';
import { expandRule, parseRRule } from '../../src/ical/rrule.ts';
import { ics, run, runCorpus, startUtc } from './helpers.ts';

/** Wall-clock instances of an RRULE from a floating DTSTART, up to a horizon year. */
function expand(rule: string, dtstart: string, opts: { until?: string; horizonYear?: number; max?: number } = {}): string[] {
  const { rule: r } = parseRRule(rule);
  const m = /^(\d{4})(\d\d)(\d\d)(?:T(\d\d)(\d\d)(\d\d))?$/.exec(dtstart)!;
  const isDate = m[4] === undefined;
  const start = daysFromCivil(+m[1], +m[2], +m[3]) * 86_400 + (isDate ? 0 : +m[4] * 3600 + +m[5] * 60 + +m[6]);
  const u = r!.until;
  const untilLocal = u ? (u.kind === 'date' ? u.day * 86_400 : u.sec) : undefined;
  const out: string[] = [];
  for (const t of expandRule(r!, { start, isDate, untilLocal, horizon: daysFromCivil(opts.horizonYear ?? 2100, 1, 1) * 86_400, budget: { remaining: 10_000_000 } })) {
    out.push(formatWall(t).slice(0, isDate ? 10 : 19));
    if (out.length >= (opts.max ?? 1000)) break;
  }
  return out;
}

describe('RRULE engine (RFC 5545 3.8.5.3 examples)', () => {
  it('DAILY COUNT, INTERVAL, UNTIL', () => {
    expect(expand('FREQ=DAILY;COUNT=3', '19970902T090000')).toEqual(['1997-09-02 09:00:00', '1997-09-03 09:00:00', '1997-09-04 09:00:00']);
    expect(expand('FREQ=DAILY;INTERVAL=10;COUNT=3', '19970902T090000').map((s) => s.slice(0, 10))).toEqual(['1997-09-02', '1997-09-12', '1997-09-22']);
    expect(expand('FREQ=DAILY;UNTIL=19970905T090000', '19970902T090000')).toHaveLength(4);
  });
  it('WEEKLY with BYDAY and WKST (the RFC example where WKST changes the result)', () => {
    expect(expand('FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=MO', '19970805T090000').map((s) => s.slice(0, 10))).toEqual(['1997-08-05', '1997-08-10', '1997-08-19', '1997-08-24']);
    expect(expand('FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=SU', '19970805T090000').map((s) => s.slice(0, 10))).toEqual(['1997-08-05', '1997-08-17', '1997-08-19', '1997-08-31']);
  });
  it('MONTHLY ordinal weekdays, negative month days, BYSETPOS', () => {
    expect(expand('FREQ=MONTHLY;COUNT=6;BYDAY=1FR,-1FR', '19970905T090000').map((s) => s.slice(0, 10))).toEqual(['1997-09-05', '1997-09-26', '1997-10-03', '1997-10-31', '1997-11-07', '1997-11-28']);
    expect(expand('FREQ=MONTHLY;BYMONTHDAY=-3;COUNT=4', '19970928T090000').map((s) => s.slice(0, 10))).toEqual(['1997-09-28', '1997-10-29', '1997-11-28', '1997-12-29']);
    expect(expand('FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-2;COUNT=3', '19970929T090000').map((s) => s.slice(0, 10))).toEqual(['1997-09-29', '1997-10-30', '1997-11-27']);
    // Months without a 31st are skipped, not clamped.
    expect(expand('FREQ=MONTHLY;BYMONTHDAY=31;COUNT=4', '20240131T100000').map((s) => s.slice(0, 10))).toEqual(['2024-01-31', '2024-03-31', '2024-05-31', '2024-07-31']);
  });
  it('YEARLY with BYMONTH, BYWEEKNO, BYYEARDAY, and Friday the 13th', () => {
    expect(expand('FREQ=YEARLY;COUNT=4;BYMONTH=6,7', '19970610T090000').map((s) => s.slice(0, 10))).toEqual(['1997-06-10', '1997-07-10', '1998-06-10', '1998-07-10']);
    expect(expand('FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO;COUNT=3', '19970512T090000').map((s) => s.slice(0, 10))).toEqual(['1997-05-12', '1998-05-11', '1999-05-17']);
    expect(expand('FREQ=YEARLY;INTERVAL=3;COUNT=5;BYYEARDAY=1,100,200', '19970101T090000').map((s) => s.slice(0, 10))).toEqual(['1997-01-01', '1997-04-10', '1997-07-19', '2000-01-01', '2000-04-09']);
    expect(expand('FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13;COUNT=4', '19970902T090000').map((s) => s.slice(0, 10))).toEqual(['1997-09-02', '1998-02-13', '1998-03-13', '1998-11-13']);
    expect(expand('FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;COUNT=3', '20240229').map((s) => s.slice(0, 10))).toEqual(['2024-02-29', '2028-02-29', '2032-02-29']);
  });
  it('HOURLY / MINUTELY with limits', () => {
    expect(expand('FREQ=HOURLY;INTERVAL=3;UNTIL=19970902T170000', '19970902T090000')).toEqual(['1997-09-02 09:00:00', '1997-09-02 12:00:00', '1997-09-02 15:00:00']);
    expect(expand('FREQ=MINUTELY;INTERVAL=20;BYHOUR=9,10;COUNT=7', '19970902T090000').map((s) => s.slice(11, 16))).toEqual(['09:00', '09:20', '09:40', '10:00', '10:20', '10:40', '09:00']);
  });
  it('counts DTSTART as the first instance even when the rule would not produce it', () => {
    expect(expand('FREQ=MONTHLY;COUNT=3;BYDAY=1FR', '20240110T090000').map((s) => s.slice(0, 10))).toEqual(['2024-01-10', '2024-02-02', '2024-03-01']);
  });
  it('skips junk parts of a malformed RRULE and reports them', () => {
    const p = parseRRule('RRULE:AnythingRandom;FREQ=WEEKLY;INTERVAL=0;X-NAME=1;BYDAY=MO,XX');
    expect(p.rule).toMatchObject({ freq: 'WEEKLY', interval: 1, byday: [{ n: 0, wd: 0 }] });
    expect(p.problems.length).toBe(4);
    expect(parseRRule('INTERVAL=2').rule).toBeUndefined();
  });
});

describe('series expansion', () => {
  it('RDATE adds instances (deduplicated with DTSTART) and EXDATE removes them, COUNT counting removed ones', () => {
    const r = run(ics('UID:s\nSUMMARY:S\nDTSTART:20240101T100000Z\nDURATION:PT1H\nRRULE:FREQ=DAILY;COUNT=5\nEXDATE:20240102T100000Z,20240103T100000Z\nRDATE:20240101T100000Z,20240110T150000Z'));
    expect(r.drafts.map((d) => d.start_date)).toEqual(['2024-01-01 10:00:00', '2024-01-04 10:00:00', '2024-01-05 10:00:00', '2024-01-10 15:00:00']);
  });
  it('a DATE EXDATE removes the timed instance of that day; EXDATE in another zone matches by instant', () => {
    const r = run(ics('UID:s\nSUMMARY:S\nDTSTART;TZID=Europe/Berlin:20240101T100000\nRRULE:FREQ=DAILY;COUNT=4\nEXDATE;VALUE=DATE:20240102\nEXDATE;TZID=America/New_York:20240103T040000'));
    expect(r.drafts.map((d) => d.start_date)).toEqual(['2024-01-01 10:00:00', '2024-01-04 10:00:00']);
  });
  it('RDATE;VALUE=PERIOD gives instances their own length', () => {
    const r = run(ics('UID:p\nSUMMARY:P\nDTSTART:20240101T100000Z\nDTEND:20240101T110000Z\nRDATE;VALUE=PERIOD:20240105T100000Z/20240105T130000Z,20240106T100000Z/PT30M'));
    expect(r.drafts.map((d) => [d.start_date, d.end_date])).toEqual([
      ['2024-01-01 10:00:00', '2024-01-01 11:00:00'], ['2024-01-05 10:00:00', '2024-01-05 13:00:00'], ['2024-01-06 10:00:00', '2024-01-06 10:30:00'],
    ]);
  });
  it('keeps local time across DST and matches UTC instants (weekly Berlin series)', () => {
    const r = run(ics('UID:w\nSUMMARY:W\nDTSTART;TZID=Europe/Berlin:20240320T090000\nRRULE:FREQ=WEEKLY;COUNT=3'));
    expect(r.drafts.map((d) => [d.start_date, startUtc(d)])).toEqual([
      ['2024-03-20 09:00:00', '2024-03-20T08:00:00Z'], ['2024-03-27 09:00:00', '2024-03-27T08:00:00Z'], ['2024-04-03 09:00:00', '2024-04-03T07:00:00Z'],
    ]);
  });
  it('expands only the window, and counts instances outside it', () => {
    const window = { from: new Date('2024-06-01T00:00:00Z'), to: new Date('2024-06-08T00:00:00Z') };
    const r = run(ics('UID:d\nSUMMARY:D\nDTSTART:20000101T120000Z\nRRULE:FREQ=DAILY'), { window });
    expect(r.drafts.map((d) => d.start_date.slice(0, 10))).toEqual(['01', '02', '03', '04', '05', '06', '07'].map((x) => `2024-06-${x}`));
    expect(r.drafts[0].identity).toBe('d|2024-06-01T12:00:00Z');
  });
  it('an instance running into the window is included', () => {
    const window = { from: new Date('2024-06-01T00:00:00Z'), to: new Date('2024-06-02T00:00:00Z') };
    const r = run(ics('UID:o\nSUMMARY:O\nDTSTART:20240531T230000Z\nDTEND:20240601T010000Z'), { window });
    expect(r.drafts).toHaveLength(1);
  });
  it('all-day series with a UTC UNTIL and a DATE-TIME RECURRENCE-ID (Exchange)', () => {
    const r = runCorpus('exchange2010-allday-weekly-moved-override.ics', { defaultTimezone: 'Europe/Berlin' });
    // Compared at local midnight in the series' zone, the 2026-08-18 instance is inside UNTIL.
    expect(r.drafts).toHaveLength(52);
  });
});

describe('overrides', () => {
  const master = 'UID:m\nSUMMARY:Weekly\nLOCATION:Room 1\nDTSTART;TZID=Europe/Berlin:20240101T100000\nDTEND;TZID=Europe/Berlin:20240101T110000\nRRULE:FREQ=WEEKLY;COUNT=4';
  it('a moved override replaces its instance, keeps its identity, inherits missing properties', () => {
    const r = run(ics(master, 'UID:m\nRECURRENCE-ID;TZID=Europe/Berlin:20240108T100000\nSUMMARY:Moved\nDTSTART;TZID=Europe/Berlin:20240109T150000\nDTEND;TZID=Europe/Berlin:20240109T160000'));
    expect(r.drafts.map((d) => [d.title, d.start_date])).toEqual([
      ['Weekly', '2024-01-01 10:00:00'], ['Moved', '2024-01-09 15:00:00'], ['Weekly', '2024-01-15 10:00:00'], ['Weekly', '2024-01-22 10:00:00'],
    ]);
    expect(r.drafts[1].identity).toBe('m|2024-01-08T09:00:00Z');
    expect(r.drafts[1].venue?.venue).toBe('Room 1');
  });
  it('an override moved into the window shows even when its original slot is outside, and the other way round', () => {
    const ov = 'UID:m\nRECURRENCE-ID;TZID=Europe/Berlin:20240108T100000\nSUMMARY:Moved\nDTSTART;TZID=Europe/Berlin:20240301T100000\nDURATION:PT1H';
    const into = run(ics(master, ov), { window: { from: new Date('2024-02-01T00:00:00Z'), to: new Date('2024-04-01T00:00:00Z') } });
    expect(into.drafts.map((d) => d.identity)).toEqual(['m|2024-01-08T09:00:00Z']);
    const out = run(ics(master, ov), { window: { from: new Date('2024-01-05T00:00:00Z'), to: new Date('2024-01-12T00:00:00Z') } });
    expect(out.drafts).toHaveLength(0);
  });
  it('STATUS:CANCELLED overrides (and cancelled masters) give drafts flagged cancelled', () => {
    const r = run(ics(master, 'UID:m\nRECURRENCE-ID;TZID=Europe/Berlin:20240115T100000\nSTATUS:CANCELLED\nDTSTART;TZID=Europe/Berlin:20240115T100000'));
    expect(r.drafts.map((d) => d.cancelled)).toEqual([false, false, true, false]);
    expect(r.summary.cancelled).toBe(1);
    const all = run(ics(`${master}\nSTATUS:CANCELLED`));
    expect(all.drafts.every((d) => d.cancelled)).toBe(true);
  });
  it('orphan overrides (no master) are kept as single events with occurrence identities', () => {
    const r = runCorpus('google-contacts-birthdays-orphan-overrides-bad-rdate.ics');
    expect(r.drafts.filter((d) => d.identity.startsWith('BIRTHDAY_')).map((d) => d.identity)).toEqual([
      'BIRTHDAY_79d389868f96182e@google.com|2012-12-10', 'BIRTHDAY_79d389868f96182e@google.com|2013-12-10', 'BIRTHDAY_79d389868f96182e@google.com|2014-12-10',
    ]);
    expect(r.summary.series).toBe(2);
  });
  it('the highest SEQUENCE wins between two overrides of the same instance', () => {
    const a = 'UID:m\nRECURRENCE-ID;TZID=Europe/Berlin:20240108T100000\nSEQUENCE:2\nSUMMARY:New\nDTSTART;TZID=Europe/Berlin:20240108T120000';
    const b = 'UID:m\nRECURRENCE-ID;TZID=Europe/Berlin:20240108T100000\nSEQUENCE:1\nSUMMARY:Old\nDTSTART;TZID=Europe/Berlin:20240108T110000';
    const r = run(ics(master, a, b));
    expect(r.drafts.filter((d) => d.identity === 'm|2024-01-08T09:00:00Z').map((d) => d.title)).toEqual(['New']);
    expect(r.summary.accounting.superseded).toBe(1);
  });
  it('RANGE=THISANDFUTURE shifts and re-lengthens every later instance (reservas)', () => {
    const r = runCorpus('reservas-range-thisandfuture-date-until-crlf.ics', { window: { from: new Date('2024-09-01T00:00:00Z'), to: new Date('2024-09-26T00:00:00Z') } });
    expect(r.drafts.map((d) => [d.title, d.start_date, d.end_date])).toEqual([
      ['ORIGINAL EVENT', '2024-09-01 12:00:00', '2024-09-01 14:00:00'],
      ['ORIGINAL EVENT', '2024-09-03 12:00:00', '2024-09-03 14:00:00'],
      ['ORIGINAL EVENT', '2024-09-05 12:00:00', '2024-09-05 14:00:00'],
      ['ORIGINAL EVENT', '2024-09-07 12:00:00', '2024-09-07 14:00:00'],
      ['ORIGINAL EVENT', '2024-09-09 12:00:00', '2024-09-09 14:00:00'],
      ['ORIGINAL EVENT', '2024-09-11 12:00:00', '2024-09-11 14:00:00'],
      ['MODIFIED EVENT', '2024-09-13 09:00:00', '2024-09-13 16:00:00'],
      ['MODIFIED EVENT', '2024-09-14 06:00:00', '2024-09-14 13:00:00'], // the RDATE, shifted by the range too
      ['MODIFIED EVENT', '2024-09-15 17:00:00', '2024-09-15 19:00:00'],
      ['MODIFIED EVENT', '2024-09-17 09:00:00', '2024-09-17 16:00:00'],
      ['MODIFIED EVENT', '2024-09-19 09:00:00', '2024-09-19 16:00:00'],
      ['EDITED EVENT', '2024-09-22 14:22:00', '2024-09-22 16:13:00'],
      ['EDITED EVENT', '2024-09-24 14:22:00', '2024-09-24 16:13:00'],
    ]);
    expect(r.drafts[11].identity).toBe('210|2024-09-21T12:00:00Z');
  });
  it('an orphan THISANDFUTURE override with its own RDATE list is expanded (khal)', () => {
    const r = runCorpus('khal-rdate-period-tzid-crlf.ics');
    expect(r.drafts).toHaveLength(19);
    // No UID in the file: content identity; the first instance is keyed by its RECURRENCE-ID.
    expect(r.drafts[0].identity).toMatch(/^nouid\|Event\|.*\|2018-03-27T13:00:00Z$/);
    expect(r.drafts.map((d) => d.start_date.slice(11))).toEqual(Array(19).fill('08:00:00'));
    expect(new Set(r.drafts.map((d) => d.identity)).size).toBe(19);
  });
});

describe('runaway rules are bounded', () => {
  it('FREQ=SECONDLY without end: capped per series with a warning naming the UID, in bounded time', () => {
    const t0 = performance.now();
    const r = run(ics('UID:runaway\nSUMMARY:R\nDTSTART:20200101T000000Z\nRRULE:FREQ=SECONDLY'), { window: { from: new Date('2020-01-01T00:00:00Z'), to: new Date('2030-01-01T00:00:00Z') } });
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(r.drafts).toHaveLength(5000);
    expect(r.summary.warnings.join('\n')).toMatch(/UID runaway: more than 5000 occurrences/);
  });
  it('the cap is an option', () => {
    const r = run(ics('UID:c\nSUMMARY:C\nDTSTART:20200101T000000Z\nRRULE:FREQ=DAILY'), { maxOccurrencesPerSeries: 10 });
    expect(r.drafts).toHaveLength(10);
  });
  it('a rule that never matches ends at the window, without hanging', () => {
    const t0 = performance.now();
    const r = run(ics('UID:never\nSUMMARY:N\nDTSTART:20200101T000000Z\nRRULE:FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=30'));
    expect(performance.now() - t0).toBeLessThan(5000);
    // DTSTART is always an instance; nothing else ever matches. Skipping whole days keeps the work small.
    expect(r.drafts.map((d) => d.start_date)).toEqual(['2020-01-01 00:00:00']);
    const never = run(ics('UID:never2\nSUMMARY:S\nDTSTART:20200101T000000Z\nRRULE:FREQ=MINUTELY;BYMONTH=4,6,9,11;BYMONTHDAY=31'));
    expect(never.drafts).toHaveLength(1);
  });
  it('a file full of runaway series finishes within the total work limit, each reported by UID', () => {
    const many = Array.from({ length: 200 }, (_, i) => `UID:r${i}\nSUMMARY:R\nDTSTART:19000101T000000Z\nRRULE:FREQ=SECONDLY;COUNT=100000000`);
    const t0 = performance.now();
    const r = run(ics(...many), { maxRecurrenceWork: 3_000_000, window: { from: new Date('2024-01-01T00:00:00Z'), to: new Date('2025-01-01T00:00:00Z') } });
    expect(performance.now() - t0).toBeLessThan(10_000);
    expect(r.summary.vevents).toBe(200);
    expect(r.failures).toHaveLength(200);
    expect(r.failures.map((f) => /UID (r\d+)\)/.exec(f.reason)?.[1])).toEqual(many.map((_, i) => `r${i}`));
    expect(r.summary.accounting.failed).toBe(200);
  });
  it('a runaway COUNT rule that must be counted from DTSTART reports the series as a failure', () => {
    const r = run(ics('UID:far\nSUMMARY:F\nDTSTART:19000101T000000Z\nRRULE:FREQ=SECONDLY;COUNT=2000000000'), {
      window: { from: new Date('2024-01-01T00:00:00Z'), to: new Date('2025-01-01T00:00:00Z') },
    });
    expect(r.drafts).toHaveLength(0);
    expect(r.failures).toHaveLength(1);
    expect(r.failures[0].reason).toMatch(/UID far\): recurrence expansion stopped at the work limit/);
  });
});
