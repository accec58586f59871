import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { inspectCsv } from '../../src/sources/csv/index.ts';
import { shortRowsWarning } from '../../src/sources/csv/index.ts';
import { CORPUS, DATA_ROWS, MAPPINGS, collect, corpusOpen, draftAt, failureAt, opts, refusal } from './helpers.ts';

/**
 * Every CSV of the shared corpus (SOURCES.md "CSV files", EXPECTATIONS.md §18-21): inspected and
 * read, or refused with a named reason; every data row accounted for; the hand-verified facts.
 * What each file produces, refusals included, is pinned by its golden (corpus-golden.test.ts).
 */

const file = (name: string) => ({ open: corpusOpen(name), o: opts({ sourceName: name, ...(MAPPINGS[name] ? { mapping: MAPPINGS[name] } : {}) }) });

describe('corpus: every file accounted for', () => {
  it('the table covers every CSV in the corpus', () => {
    expect(fs.readdirSync(CORPUS).filter((f) => f.endsWith('.csv')).sort()).toEqual(Object.keys(DATA_ROWS).sort());
  });

  for (const [name, rows] of Object.entries(DATA_ROWS)) {
    it(`${name}: drafts + failures = ${rows} data rows, lines strictly increasing, origins point back`, async () => {
      const { open, o } = file(name);
      const c = await collect(open, o);
      expect(c.inspection.rows).toBe(rows);
      expect(c.items).toHaveLength(rows);
      expect(c.drafts.length + c.failures.length).toBe(rows);
      const lines = c.items.map((i) => i.line);
      expect([...lines].sort((a, b) => a - b)).toEqual(lines);
      expect(new Set(lines).size).toBe(rows);
      for (const d of c.drafts) expect(d.origin.source).toBe(name);
      for (const f of c.failures) {
        expect(f.origin.source).toBe(name);
        expect(f.reason).toMatch(/^[^:]+: /); // '<column>: <what is wrong>'
        expect(Array.isArray(f.raw)).toBe(true);
      }
      // Every draft's origin line is the line of its own item.
      for (const item of c.items) if (item.result.ok) expect((item.result.draft as { origin: { line: number } }).origin.line).toBe(item.line);
    });
  }
});

describe('cruise-schedule-headerless-iso-datetimes.csv (no header)', () => {
  const name = 'cruise-schedule-headerless-iso-datetimes.csv';
  it('is refused without a mapping, naming --map', async () => {
    const r = await refusal(inspectCsv(corpusOpen(name), opts({ sourceName: name })));
    expect(r.reason).toMatch(/no header row/);
    expect(r.reason).toContain('line 1');
    expect(r.hint).toContain('--map');
    expect(r.file).toBe(name);
  });
  it('reads 116 rows by column index, line 1 is data', async () => {
    const { open, o } = file(name);
    const c = await collect(open, o);
    expect(c.inspection.headerLine).toBe(0);
    expect(c.inspection.unmapped).toEqual([]);
    expect(c.failures).toEqual([]);
    expect(c.drafts).toHaveLength(116);
    const first = draftAt(c, 1);
    expect(first).toMatchObject({
      title: 'Arrive Norwegian Dawn', start_date: '2013-05-03 07:00:00', end_date: '2013-05-03 08:00:00', all_day: false,
      description: 'arriving from St Thomas -Debark/Emb', timezone: 'UTC',
    });
    expect(first.venue).toMatchObject({ venue: 'Main Berth 8/9', identity: 'main berth 8/9' });
    expect(draftAt(c, 8).description).toBeUndefined(); // empty description stays absent
    expect(draftAt(c, 116)).toMatchObject({ title: 'Arrive Emerald Princess', start_date: '2013-11-02 07:00:00' });
  });
});

describe('csv2ical-combined-datetime-columns-overnight.csv', () => {
  it('reads combined date-time columns, the first event crossing midnight; CRLF without final newline', async () => {
    const { open, o } = file('csv2ical-combined-datetime-columns-overnight.csv');
    const c = await collect(open, o);
    expect(c.inspection).toMatchObject({ delimiter: ',', newline: '\r\n', headerLine: 1, unmapped: [] });
    expect(c.inspection.mapping).toEqual({ Subject: 'title', 'Start Date': 'start_date', 'End Date': 'end_date', Description: 'description', Location: 'venue' });
    expect(draftAt(c, 2)).toMatchObject({ title: 'Darth Vader birthday', start_date: '2014-07-30 18:00:00', end_date: '2014-07-31 03:00:00', all_day: false });
    expect(draftAt(c, 2).venue?.venue).toBe('Death star');
    expect(draftAt(c, 4)).toMatchObject({ title: 'R2D2 birthday', start_date: '2014-08-24 09:00:00', end_date: '2014-08-24 23:00:00' });
  });
});

describe('event-organiser CSV plug-in files', () => {
  it('doubled quotes inside a quoted field come out as single quotes', async () => {
    const { open, o } = file('event-organiser-doubled-quotes-in-field.csv');
    const c = await collect(open, o);
    const d = draftAt(c, 2);
    expect(d.description).toBe('shortcode [hello attr="value"]world[/hello] This event is a single all day event with a shortcode');
    expect(d).toMatchObject({ all_day: true, start_date: '2013-11-05 00:00:00', end_date: '2013-11-05 23:59:59' });
    expect(d.categories).toEqual([{ name: 'Sport' }]);
    expect(d.venue?.venue).toBe('Cargo');
    expect(c.inspection.unmapped).toEqual(expect.arrayContaining(['Recurrence schedule', 'Include dates', 'My custom data']));
  });
  it('ISO dates and date-times, multi-day all-day, quoted tag lists; recurrence columns listed as unmapped', async () => {
    const { open, o } = file('event-organiser-recurrence-columns-iso-datetimes.csv');
    const c = await collect(open, o);
    expect(c.failures).toEqual([]);
    expect(draftAt(c, 3)).toMatchObject({ all_day: true, start_date: '2013-11-21 00:00:00', end_date: '2013-11-23 23:59:59' });
    expect(draftAt(c, 3).venue).toBeUndefined();
    const weekly = draftAt(c, 4);
    expect(weekly).toMatchObject({ all_day: false, start_date: '2013-11-11 15:30:00', end_date: '2013-11-11 16:30:00' });
    expect(weekly.tags).toEqual([{ name: 'Tag A' }, { name: 'Tag B' }]);
    expect(draftAt(c, 5)).toMatchObject({ start_date: '2013-10-23 12:30:00', end_date: '2013-10-24 13:00:00' });
    expect(c.inspection.unmapped).toEqual([
      'Recurrence schedule', 'Schedule meta', 'Recurrence frequency', 'Recurr until', 'Include dates', 'Exclude dates', 'My custom data',
    ]);
  });
});

describe('massport-cruise-schedule-excel-title-row-crlf.csv (EXPECTATIONS §20)', () => {
  const name = 'massport-cruise-schedule-excel-title-row-crlf.csv';
  it('skips the title row and, with no title column, is refused naming --map', async () => {
    const r = await refusal(inspectCsv(corpusOpen(name), opts({ sourceName: name })));
    expect(r.reason).toMatch(/no column maps to title/);
    expect(r.reason).toContain('Vessel'); // the header listed is line 2, not the title row
    expect(r.hint).toContain('--map');
  });
  it('with a mapping: header on line 2, 117 data lines, MM/DD/YY detected, RON rows rejected at lines 62 and 64', async () => {
    const { open, o } = file(name);
    const c = await collect(open, o);
    expect(c.inspection).toMatchObject({ headerLine: 2, skippedLines: [1], delimiter: ',', newline: '\r\n', dateFormat: 'MM/DD/YYYY', rows: 117 });
    expect(c.inspection.headers).toHaveLength(16);
    expect(c.inspection.headers[0]).toBe('');
    expect(c.inspection.unmapped).toEqual(expect.arrayContaining(['column 1', 'Day', 'Type', 'voyage', 'column 16']));
    expect(c.drafts).toHaveLength(115);
    expect(c.failures.map((f) => [f.origin.line, f.reason])).toEqual([
      [62, "ETD: 'RON' is not a time"],
      [64, "ETA: 'RON' is not a time"],
    ]);
    // Call #60 (ETD RON) and the un-numbered continuation line the next day.
    expect(failureAt(c, 62).raw).toEqual(expect.arrayContaining(['60', '09/16/13', 'Crystal Symphony', '8:00', 'RON']));
    expect((failureAt(c, 64).raw as string[]).slice(0, 4)).toEqual(['', 'Tue', '09/17/13', 'Crystal Symphony']);
    expect(draftAt(c, 3)).toMatchObject({
      title: 'Norwegian Dawn', start_date: '2013-05-03 07:00:00', end_date: '2013-05-03 16:00:00', all_day: false,
      description: 'arriving from St Thomas -Debark/Emb',
    });
    expect(draftAt(c, 3).organizers).toEqual([{ identity: 'ncl', organizer: 'NCL' }]);
    expect(c.byLine.get(3)!.raw[15]).toBe('Notes'); // data row 1's extra value in the unnamed 16th column
    expect(draftAt(c, 119)).toMatchObject({ title: 'Emerald Princess', start_date: '2013-11-02 07:00:00' });
    const types = new Map<string, number>();
    for (const i of c.items) types.set(i.raw[4]!, (types.get(i.raw[4]!) ?? 0) + 1);
    expect(Object.fromEntries(types)).toEqual({ Turn: 68, POC: 48, '': 1 });
    const numbered = c.items.map((i) => i.raw[0]).filter((n) => n !== '');
    expect(numbered).toEqual(Array.from({ length: 116 }, (_, i) => String(i + 1)));
  });
});

describe('norwegian-cycling-semicolon-windows1252-crlf-html.csv (EXPECTATIONS §19)', () => {
  const name = 'norwegian-cycling-semicolon-windows1252-crlf-html.csv';
  it('without a mapping: refused, the Windows-1252 header decoded in the message', async () => {
    const r = await refusal(inspectCsv(corpusOpen(name), opts({ sourceName: name })));
    expect(r.reason).toContain('no column header is recognized');
    expect(r.reason).toContain('Nivå, Sted, Arrangør');
    expect(r.hint).toContain('--map');
  });
  it('decodes Windows-1252, splits on ";", strips the HTML inside a title (titles are plain text)', async () => {
    const { open, o } = file(name);
    const c = await collect(open, o);
    expect(c.inspection).toMatchObject({ encoding: 'windows-1252', delimiter: ';', newline: '\r\n', headerLine: 1, unmapped: ['Nivå'] });
    expect(c.inspection.headers).toEqual(['Navn', 'Dato', 'Gren', 'Nivå', 'Sted', 'Arrangør']);
    expect(c.drafts.map((d) => [d.title, d.start_date, d.end_date, d.all_day])).toEqual([
      ['Karidalen rittet', '2014-05-10 00:00:00', '2014-05-10 23:59:59', true],
      ['BMX Norges Cup 3', '2014-05-25 00:00:00', '2014-05-25 23:59:59', true],
      ['Marker Sparebankløpet 2014 avlyst', '2014-06-15 00:00:00', '2014-06-15 23:59:59', true],
      ['Østmarkrittet 2014', '2014-06-22 00:00:00', '2014-06-22 23:59:59', true],
    ]);
    expect(draftAt(c, 3).venue).toMatchObject({ venue: 'Råde', identity: 'råde' });
    expect(draftAt(c, 2).venue).toBeUndefined(); // Sted empty in rows 1 and 4
    expect(draftAt(c, 5).venue).toBeUndefined();
    expect(draftAt(c, 5).organizers[0]!.organizer).toBe('Lørenskog Cykleklubb');
    expect(draftAt(c, 2).categories).toEqual([{ name: 'Landevei' }]);
  });
});

describe('the-events-calendar-crlf-ragged-rows-mixed-booleans.csv (EXPECTATIONS §18)', () => {
  const name = 'the-events-calendar-crlf-ragged-rows-mixed-booleans.csv';
  it('regression: every row of The Events Calendar\'s ragged export was rejected (short rows now read with empty trailing cells)', async () => {
    const { open, o } = file(name);
    const c = await collect(open, o);
    expect(c.inspection.headers).toHaveLength(18);
    expect(c.inspection.unmapped).toEqual(['Comment status', 'Ping status']);
    // Rows 3-5 have 14 of 18 cells: missing trailing cells are empty ones, counted once for the report.
    expect(c.inspection.shortRows).toBe(3);
    expect(shortRowsWarning(c.inspection.shortRows)).toBe('3 rows have fewer cells than the header (as spreadsheet tools write them): the missing trailing cells were read as empty');
    expect(c.drafts.map((d) => d.title)).toEqual(['Ankh-Sto Associates', 'Mccaleb, John A Esq', 'Marriott Hotels Resorts Suites']);
    expect(draftAt(c, 4)).toMatchObject({ start_date: '2014-11-10 09:30:00', end_date: '2014-11-10 17:30:00' });
    // A row with MORE cells than the header (non-empty extras) cannot be mapped safely: still refused, all cells kept.
    expect(c.failures.map((f) => [f.origin.line, f.reason])).toEqual([[2, 'row: has 20 fields, the header has 18']]);
    expect(failureAt(c, 2).raw).toHaveLength(20);
    expect((failureAt(c, 2).raw as string[]).slice(18)).toEqual(['false', 'false']);
    expect((failureAt(c, 2).raw as string[])[12]).toBe('Convention, Conference');
    expect(c.items.map((i) => i.raw[6])).toEqual(['TRUE', 'Yes', '0', 'FALSE']);
  });
  it('the same rows, evened out to 18 cells, read with their mixed booleans', async () => {
    const text = fs.readFileSync(new URL(name, CORPUS), 'latin1');
    const Papa = (await import('papaparse')).default;
    const rows = Papa.parse<string[]>(text, { newline: '\r\n' }).data;
    const even = rows.map((r) => [...r, '', '', '', ''].slice(0, 18));
    const fixed = Papa.unparse(even, { newline: '\r\n' });
    const { bytesOpen } = await import('./helpers.ts');
    const c = await collect(bytesOpen(fixed), opts({ sourceName: name }));
    expect(c.failures).toEqual([]);
    expect(c.drafts.map((d) => d.all_day)).toEqual([true, true, false, false]);
    // All Day TRUE with times given: the times are ignored.
    expect(draftAt(c, 2)).toMatchObject({ title: 'Five Star Limousines Of Tx Inc', start_date: '2014-11-19 00:00:00', end_date: '2014-11-19 23:59:59' });
    expect(draftAt(c, 2).categories).toEqual([{ name: 'Convention' }, { name: 'Conference' }]);
    expect(draftAt(c, 2)).toMatchObject({ show_map_link: true, show_map: true, hide_from_listings: true, sticky: true, cost: '76' });
    expect(draftAt(c, 3)).toMatchObject({ show_map_link: false, show_map: true });
    expect(draftAt(c, 4)).toMatchObject({ title: 'Mccaleb, John A Esq', start_date: '2014-11-10 09:30:00', end_date: '2014-11-10 17:30:00' });
    expect(draftAt(c, 5)).toMatchObject({ start_date: '2014-11-10 21:45:00', end_date: '2014-11-10 22:45:00', show_map: false });
    expect(c.inspection.dateFormat).toBe('MM/DD/YYYY');
  });
});

describe('the-events-calendar-timezone-column-utc-offsets.csv', () => {
  it('maps the Event Timezone column: UTC, UTC+3:30, Atlantic/Bermuda, Europe/Nicosia', async () => {
    const { open, o } = file('the-events-calendar-timezone-column-utc-offsets.csv');
    const c = await collect(open, o);
    expect(c.failures).toEqual([]);
    expect(c.inspection.mapping['Event Timezone']).toBe('timezone');
    expect(c.drafts.map((d) => d.timezone)).toEqual(['UTC', 'UTC+3.5', 'Atlantic/Bermuda', 'Europe/Nicosia']);
    expect(draftAt(c, 4)).toMatchObject({ start_date: '2014-11-10 09:30:00', end_date: '2014-11-10 17:30:00', all_day: false });
    expect(draftAt(c, 4).identity).toBe('Mccaleb, John A Esq|2014-11-10 09:30:00|Atlantic/Bermuda');
    expect(draftAt(c, 2)).toMatchObject({ show_map_link: true, show_map: false });
  });
});

describe('the-events-calendar-two-digit-years-currency.csv', () => {
  it('reads 11/19/14 as 2014-11-19 and appends the currency code to the cost', async () => {
    const { open, o } = file('the-events-calendar-two-digit-years-currency.csv');
    const c = await collect(open, o);
    expect(c.failures).toEqual([]);
    expect(c.inspection.dateFormat).toBe('MM/DD/YYYY');
    expect(c.drafts.map((d) => d.start_date.slice(0, 10))).toEqual(['2014-11-19', '2014-11-25', '2014-11-10', '2014-11-10']);
    expect(c.drafts.map((d) => d.cost)).toEqual(['76 USD', undefined, '92', '0 INR']);
  });
});

describe('the-events-calendar-uppercase-quoted-headers-month-name-dates.csv', () => {
  it('maps quoted UPPERCASE headers with "?", reads "apr 19, 2016", empty end → end = start', async () => {
    const { open, o } = file('the-events-calendar-uppercase-quoted-headers-month-name-dates.csv');
    const c = await collect(open, o);
    expect(c.inspection.mapping).toMatchObject({ 'ALL DAY EVENT?': 'all_day', 'SHOW MAP LINK?': 'show_map_link', 'SHOW MAP?': 'show_map', 'EVENT FEATURED IMAGE': 'image' });
    expect(c.inspection.unmapped).toEqual(['EVENT PHONE']);
    expect(c.inspection.dateFormat).toBeUndefined(); // no numeric dates: nothing to decide
    const d = draftAt(c, 2);
    expect(d).toMatchObject({
      title: 'Afslutning Minikonfirmand-dramagruppe- bob', start_date: '2016-04-19 12:30:00', end_date: '2016-04-19 12:30:00', all_day: false,
      website: 'http://sogn.dk/sanktolai-helsingoer/kalender/', show_map: true, show_map_link: true,
      image: 'https://upload.wikimedia.org/wikipedia/commons/0/0c/GoldenGateBridge-001.jpg', description: 'lorem dolor',
    });
    expect(d.venue?.venue).toBe('Sankt Olai Kirke');
    expect(d.organizers.map((x) => x.organizer)).toEqual(['Sankt Olai Kirke']);
    expect(d.categories).toEqual([{ name: 'Kirkehandlinger' }]);
  });
});

describe('tine20-demo-events-relative-dates-rrule-column-german.csv', () => {
  it('rejects every relative date with a reason naming the column; German text intact', async () => {
    const { open, o } = file('tine20-demo-events-relative-dates-rrule-column-german.csv');
    const c = await collect(open, o);
    expect(c.drafts).toEqual([]);
    expect(c.failures.map((f) => f.origin.line)).toEqual([2, 3, 4, 5]);
    expect(c.failures.map((f) => f.reason.split(' is a relative date')[0])).toEqual(["date: 'today'", "date: 'monday'", "date: 'lastMonday'", "date: 'wednesday2week'"]);
    expect(c.inspection.mapping).toEqual({ summary: 'title', description: 'description', date: 'start_date', time: 'start_time', is_all_day_event: 'all_day', status: 'status' });
    expect(c.inspection.unmapped).toEqual(['duration', 'rrule', 'members', 'resources', 'groups']);
    expect(failureAt(c, 3).raw).toContain('Büro2');
    expect(failureAt(c, 2).raw).toContain('test;Jan, Ulrich;Cfeitl'); // ';' inside quotes is not a delimiter
  });
});

describe('yahoo-calendar-export-allday-and-ampm-times.csv (EXPECTATIONS §21)', () => {
  const name = 'yahoo-calendar-export-allday-and-ampm-times.csv';
  it('10 all-day holidays and 5 timed rows with AM/PM, unpadded and padded dates', async () => {
    const { open, o } = file(name);
    const c = await collect(open, o);
    expect(c.failures).toEqual([]);
    expect(c.inspection.dateFormat).toBe('MM/DD/YYYY');
    expect(c.drafts.filter((d) => d.all_day)).toHaveLength(10);
    expect(draftAt(c, 2)).toMatchObject({ title: "New Year's Day", start_date: '2009-01-01 00:00:00', end_date: '2009-01-01 23:59:59', all_day: true });
    expect(draftAt(c, 7)).toMatchObject({ title: 'Labor Day', start_date: '2009-09-07 00:00:00' });
    expect(draftAt(c, 12)).toMatchObject({ title: 'Do It With Drupal', start_date: '2008-12-10 08:00:00', end_date: '2008-12-10 17:00:00', all_day: false });
    const con = c.drafts.filter((d) => d.title === 'DrupalCon');
    expect(con.map((d) => [d.start_date, d.end_date])).toEqual([
      ['2009-03-04 08:00:00', '2009-03-04 17:00:00'],
      ['2009-03-05 08:00:00', '2009-03-05 17:00:00'],
      ['2009-03-06 08:00:00', '2009-03-06 17:00:00'],
      ['2009-03-07 08:00:00', '2009-03-07 17:00:00'],
    ]);
    expect(new Set(c.drafts.map((d) => d.timezone))).toEqual(new Set(['UTC']));
  });
  it('no zone anywhere: the defaultTimezone option applies', async () => {
    const c = await collect(corpusOpen(name), opts({ sourceName: name, defaultTimezone: 'America/Chicago' }));
    expect(new Set(c.drafts.map((d) => d.timezone))).toEqual(new Set(['America/Chicago']));
    // The identity of a row without a zone does not depend on the zone it is read in (issue 13
    // item 3: a rerun with another --default-tz moves the events instead of duplicating them).
    const other = await collect(corpusOpen(name), opts({ sourceName: name, defaultTimezone: 'Europe/Oslo' }));
    expect(draftAt(c, 13).identity).toBe('DrupalCon|2009-03-04 08:00:00|UTC');
    expect(draftAt(other, 13).identity).toBe(draftAt(c, 13).identity);
  });
});
