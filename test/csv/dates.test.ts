import { describe, expect, it } from 'vitest';
import { parseDateFormat, parseDateTime, parseTime } from '../../src/sources/csv/dates.ts';
import { inspectCsv } from '../../src/sources/csv/index.ts';
import { bytesOpen, collect, draftAt, failureAt, opts, refusal } from './helpers.ts';

const ymd = (v: string, order?: 'DMY' | 'MDY' | 'YMD') => {
  const r = parseDateTime(v, order);
  if (!r.ok) return `ERR ${r.reason}`;
  const { date, time, offsetMinutes } = r.value;
  const p = (n: number) => String(n).padStart(2, '0');
  return `${date.y}-${p(date.m)}-${p(date.d)}${time ? ` ${p(time.h)}:${p(time.mi)}:${p(time.s)}` : ''}${offsetMinutes !== undefined ? ` ${offsetMinutes}` : ''}`;
};

describe('date cells', () => {
  it('always reads ISO forms', () => {
    expect(ymd('2024-01-05')).toBe('2024-01-05');
    expect(ymd('2024-01-05 10:00')).toBe('2024-01-05 10:00:00');
    expect(ymd('2024-01-05 10:00:30')).toBe('2024-01-05 10:00:30');
    expect(ymd('2024-01-05T10:00')).toBe('2024-01-05 10:00:00');
    expect(ymd('2024-1-5')).toBe('2024-01-05');
    expect(ymd('2024-01-05T10:00:00Z')).toBe('2024-01-05 10:00:00 0');
    expect(ymd('2024-01-05T10:00:00+02:00')).toBe('2024-01-05 10:00:00 120');
    expect(ymd('20240105T100000Z')).toBe('2024-01-05 10:00:00 0');
    expect(ymd('2024/01/05')).toBe('2024-01-05'); // year first: unambiguous
  });

  it('reads day/month-first numeric dates only with an order', () => {
    expect(ymd('05/03/2024')).toMatch(/^ERR .*ambiguous.*--date-format/);
    expect(ymd('05/03/2024', 'DMY')).toBe('2024-03-05');
    expect(ymd('05/03/2024', 'MDY')).toBe('2024-05-03');
    expect(ymd('5.3.2024', 'DMY')).toBe('2024-03-05');
    expect(ymd('05-03-2024', 'DMY')).toBe('2024-03-05');
    expect(ymd('05/03/24', 'DMY')).toBe('2024-03-05'); // YY → 20YY
    expect(ymd('11/19/14', 'MDY')).toBe('2014-11-19');
    expect(ymd('11/19/2014 7:30 PM', 'MDY')).toBe('2014-11-19 19:30:00');
    expect(ymd('05/03/2024', 'YMD')).toMatch(/^ERR .*does not match/);
  });

  it('reads month names in either order, with or without a weekday', () => {
    expect(ymd('January 5, 2024')).toBe('2024-01-05');
    expect(ymd('5 Jan 2024')).toBe('2024-01-05');
    expect(ymd('apr 19, 2016')).toBe('2016-04-19');
    expect(ymd('Fri, 5-Jan-24')).toBe('2024-01-05');
    expect(ymd('Sept 3 2024 at 7pm')).toBe('2024-09-03 19:00:00');
    expect(ymd('3rd March 2024, 10:15')).toBe('2024-03-03 10:15:00');
  });

  it('refuses impossible dates with the reason', () => {
    expect(ymd('31/02/2024', 'DMY')).toBe("ERR '31/02/2024' is not a real date (February 2024 has 29 days)");
    expect(ymd('2023-02-29')).toMatch(/February 2023 has 28 days/);
    expect(ymd('13/13/2024', 'DMY')).toMatch(/no month 13/);
    expect(ymd('2024-04-31')).toMatch(/April 2024 has 30 days/);
  });
  it('keeps the reasons of years 0-99, whose month lengths are those of 1900-1999 (as Date.UTC read them)', () => {
    expect(ymd('0000-02-29')).toBe("ERR '0000-02-29' is not a real date (February 0 has 28 days)");
    expect(ymd('0004-02-29')).toBe("ERR '0004-02-29' has an out-of-range year");
    expect(ymd('1900-02-29')).toBe("ERR '1900-02-29' is not a real date (February 1900 has 28 days)");
    expect(ymd('2000-02-29')).toBe('2000-02-29');
  });
  it('reads a cell the same the second time (results are remembered and shared)', () => {
    const first = ymd('03/04/2025 7:30 pm', 'DMY');
    expect(ymd('03/04/2025 7:30 pm', 'MDY')).toBe('2025-03-04 19:30:00'); // the order is part of what is remembered
    expect(ymd('03/04/2025 7:30 pm', 'DMY')).toBe(first);
    expect(first).toBe('2025-04-03 19:30:00');
    const shared = parseDateTime('03/04/2025 7:30 pm', 'DMY');
    expect(shared.ok && Object.isFrozen(shared.value.date) && Object.isFrozen(shared.value.time)).toBe(true);
    const time = parseTime('7:30 pm');
    expect(time.ok && Object.isFrozen(time.value.time)).toBe(true);
  });

  it('names relative dates and garbage', () => {
    for (const v of ['today', 'tomorrow', 'monday', 'lastMonday', 'next friday', 'wednesday2week', '+3 days']) {
      expect(ymd(v)).toMatch(/relative date/);
    }
    expect(ymd('soon-ish')).toBe("ERR 'soon-ish' is not a date");
    expect(ymd('2024-01-05 RON')).toMatch(/unreadable time/);
  });
});

describe('time cells', () => {
  const t = (v: string) => {
    const r = parseTime(v);
    return r.ok ? `${r.value.time.h}:${String(r.value.time.mi).padStart(2, '0')}:${String(r.value.time.s).padStart(2, '0')}` : 'ERR';
  };
  it('reads 24h, AM/PM, HHMM and friends', () => {
    expect(t('7:30:00')).toBe('7:30:00');
    expect(t('07:30')).toBe('7:30:00');
    expect(t('08:00 AM')).toBe('8:00:00');
    expect(t('05:00 PM')).toBe('17:00:00');
    expect(t('12:00 AM')).toBe('0:00:00');
    expect(t('12:30 PM')).toBe('12:30:00');
    expect(t('5pm')).toBe('17:00:00');
    expect(t('5 p.m.')).toBe('17:00:00');
    expect(t('1530')).toBe('15:30:00');
    expect(t('930')).toBe('9:30:00');
    expect(t('15h30')).toBe('15:30:00');
    expect(t('19.30')).toBe('19:30:00');
    expect(t('15')).toBe('15:00:00');
    expect(t('noon')).toBe('12:00:00');
    expect(t('24:00')).toBe('23:59:59');
  });
  it('rejects what is not a time', () => {
    for (const v of ['RON', '25:00', '13:00 PM', '7:60', 'half past']) expect(t(v)).toBe('ERR');
  });
});

describe('date formats', () => {
  it('parses the --date-format option into an order', () => {
    expect(parseDateFormat('DD/MM/YYYY')).toBe('DMY');
    expect(parseDateFormat('D.M.YYYY')).toBe('DMY');
    expect(parseDateFormat('MM/DD/YYYY')).toBe('MDY');
    expect(parseDateFormat('mm-dd-yy')).toBe('MDY');
    expect(parseDateFormat('YYYY/MM/DD')).toBe('YMD');
    expect(parseDateFormat('DD-MM-YYYY')).toBe('DMY');
    expect(parseDateFormat('YYYY')).toBeUndefined();
    expect(parseDateFormat('DD/DD/YYYY')).toBeUndefined();
  });
});

const csv = (rows: string[][]) => rows.map((r) => r.join(',')).join('\n') + '\n';

describe('whole-file date order', () => {
  const ambiguous = csv([['Title', 'Start Date'], ['A', '05/03/2024'], ['B', '01/02/2024'], ['C', '07/07/2024']]);

  it('refuses a file whose numeric dates are all ambiguous, naming --date-format', async () => {
    const r = await refusal(inspectCsv(bytesOpen(ambiguous), opts()));
    expect(r.reason).toMatch(/ambiguous/);
    expect(r.reason).toContain("line 2: '05/03/2024'");
    expect(r.hint).toContain('--date-format');
  });

  it('reads the same file with an explicit format', async () => {
    const c = await collect(bytesOpen(ambiguous), opts({ dateFormat: 'DD/MM/YYYY' }));
    expect(c.inspection.dateFormat).toBe('DD/MM/YYYY');
    expect(c.drafts.map((d) => d.start_date.slice(0, 10))).toEqual(['2024-03-05', '2024-02-01', '2024-07-07']);
  });

  it('detects day-first from one value anywhere in the file (the last row)', async () => {
    const c = await collect(bytesOpen(ambiguous + 'D,25/03/2024\n'), opts());
    expect(c.inspection.dateFormat).toBe('DD/MM/YYYY');
    expect(draftAt(c, 2).start_date).toBe('2024-03-05 00:00:00');
  });

  it('detects month-first from an end-date column too', async () => {
    const c = await collect(bytesOpen(csv([['Title', 'Start Date', 'End Date'], ['A', '05/03/2024', '05/13/2024']])), opts());
    expect(c.inspection.dateFormat).toBe('MM/DD/YYYY');
    expect(draftAt(c, 2)).toMatchObject({ start_date: '2024-05-03 00:00:00', end_date: '2024-05-13 23:59:59' });
  });

  it('refuses a file mixing day-first and month-first values', async () => {
    const r = await refusal(inspectCsv(bytesOpen(csv([['Title', 'Start Date'], ['A', '25/03/2024'], ['B', '03/25/2024']])), opts()));
    expect(r.reason).toMatch(/disagree/);
    expect(r.reason).toContain('line 2');
    expect(r.reason).toContain('line 3');
    expect(r.hint).toContain('--date-format');
  });

  it('with an explicit format, a row that does not fit it fails alone', async () => {
    const c = await collect(bytesOpen(csv([['Title', 'Start Date'], ['A', '25/03/2024'], ['B', '03/25/2024']])), opts({ dateFormat: 'DD/MM/YYYY' }));
    expect(draftAt(c, 2).start_date).toBe('2024-03-25 00:00:00');
    expect(failureAt(c, 3).reason).toBe("Start Date: '03/25/2024' is not a real date (no month 25)");
  });

  it('refuses an unknown --date-format', async () => {
    const r = await refusal(inspectCsv(bytesOpen(ambiguous), opts({ dateFormat: 'YYYY-WW' })));
    expect(r.reason).toContain("unknown date format 'YYYY-WW'");
  });
});

describe('row dates', () => {
  it('an impossible date is a row failure naming the column; the other rows go through', async () => {
    const c = await collect(bytesOpen(csv([['Event Name', 'Event Start Date'], ['A', '31/02/2024'], ['B', '28/02/2024']])), opts());
    expect(failureAt(c, 2).reason).toBe("Event Start Date: '31/02/2024' is not a real date (February 2024 has 29 days)");
    expect(draftAt(c, 3).start_date).toBe('2024-02-28 00:00:00');
  });

  it('separate date and time columns, missing end → end = start', async () => {
    const c = await collect(bytesOpen(csv([['Subject', 'Start Date', 'Start Time'], ['A', '2024-06-01', '7:30 PM']])), opts());
    expect(draftAt(c, 2)).toMatchObject({ start_date: '2024-06-01 19:30:00', end_date: '2024-06-01 19:30:00', all_day: false });
  });

  it('an end time earlier than the start time without an end date is overnight', async () => {
    const c = await collect(bytesOpen(csv([['Title', 'Date', 'Start Time', 'End Time'], ['Late show', '2024-06-01', '22:00', '02:00']])), opts());
    expect(draftAt(c, 2)).toMatchObject({ start_date: '2024-06-01 22:00:00', end_date: '2024-06-02 02:00:00' });
  });

  it('an explicit end before the start is a failure naming the end column', async () => {
    const c = await collect(bytesOpen(csv([['Title', 'Start Date', 'End Date'], ['A', '2024-06-02 10:00', '2024-06-01 11:00']])), opts());
    expect(failureAt(c, 2).reason).toBe('End Date: the end (2024-06-01 11:00:00) is before the start (2024-06-02 10:00:00)');
  });

  it('all-day: start 00:00:00, end 23:59:59 of the last day; an Outlook-style exclusive midnight end is moved back', async () => {
    const c = await collect(
      bytesOpen(csv([
        ['Subject', 'Start Date', 'Start Time', 'End Date', 'End Time', 'All day event'],
        ['Outlook holiday', '1/1/2009', '12:00:00 AM', '1/2/2009', '12:00:00 AM', 'True'],
        ['Three days', '1/13/2009', '', '1/15/2009', '', 'True'],
        ['No time at all', '1/20/2009', '', '', '', ''],
        ['Explicitly not all day with times', '1/21/2009', '9:00 AM', '', '10:00 AM', 'False'],
      ])),
      opts(),
    );
    expect(c.failures).toEqual([]);
    expect(draftAt(c, 2)).toMatchObject({ all_day: true, start_date: '2009-01-01 00:00:00', end_date: '2009-01-01 23:59:59' });
    expect(draftAt(c, 3)).toMatchObject({ all_day: true, start_date: '2009-01-13 00:00:00', end_date: '2009-01-15 23:59:59' });
    expect(draftAt(c, 4)).toMatchObject({ all_day: true, start_date: '2009-01-20 00:00:00', end_date: '2009-01-20 23:59:59' });
    expect(draftAt(c, 5)).toMatchObject({ all_day: false, start_date: '2009-01-21 09:00:00', end_date: '2009-01-21 10:00:00' });
  });

  it('a date-time with its own offset is converted to the row zone (the site ignores offsets)', async () => {
    const c = await collect(
      bytesOpen(csv([['Title', 'Start Date', 'End Date', 'Timezone'], ['A', '2024-01-05T10:00:00Z', '2024-01-05T12:00:00Z', 'Europe/Berlin'], ['B', '2024-07-05T10:00:00+02:00', '', '']])),
      opts({ defaultTimezone: 'America/New_York' }),
    );
    expect(draftAt(c, 2)).toMatchObject({ timezone: 'Europe/Berlin', start_date: '2024-01-05 11:00:00', end_date: '2024-01-05 13:00:00' });
    expect(draftAt(c, 3)).toMatchObject({ timezone: 'America/New_York', start_date: '2024-07-05 04:00:00' });
  });

  it('a UTC offset zone column becomes Etc/GMT (inverted sign); a bad zone fails the row', async () => {
    const c = await collect(
      bytesOpen(csv([['Title', 'Start Date', 'Event Time Zone'], ['A', '2024-01-05 10:00', 'UTC+2'], ['B', '2024-01-05 10:00', 'GMT-5'], ['C', '2024-01-05 10:00', 'Mars/Olympus']])),
      opts(),
    );
    expect(draftAt(c, 2).timezone).toBe('Etc/GMT-2');
    expect(draftAt(c, 3).timezone).toBe('Etc/GMT+5');
    expect(failureAt(c, 4).reason).toMatch(/^Event Time Zone: 'Mars\/Olympus' is not a time zone/);
  });

  it('collects every problem on a row', async () => {
    const c = await collect(bytesOpen(csv([['Title', 'Start Date', 'Featured', 'Event Website'], ['', 'yesterday', 'maybe', 'not a url']])), opts());
    expect(failureAt(c, 2).reason.split('; ')).toEqual([
      'Title: is empty (a title is required)',
      "Start Date: 'yesterday' is a relative date, which is not supported (give a calendar date)",
      "Event Website: 'not a url' is not a web address (http:// or https://)",
      "Featured: 'maybe' is not a yes/no value (yes/no, true/false, 1/0, x)",
    ]);
  });
});
