import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runIcsImport, type IcsImportParams } from '../../src/runs/import-ics.ts';
import { RunFailedError } from '../../src/runs/context.ts';
import { decodeIcs } from '../../src/sources/ics/index.ts';
import { slugify } from '../../src/model/identity.ts';
import type { ReportJson } from '../../src/report/report.ts';
import { corpusRefusal } from '../support/golden.ts';
import { corpus, testSite } from '../support/site.ts';

const FILES = readdirSync(corpus('ics')).filter((f) => f.endsWith('.ics')).sort();

/** The corpus is years old: each file gets a window from its first DTSTART, unless a test names one. */
function windowFor(file: string): { from: Date; to: Date } {
  const { text } = decodeIcs(new Uint8Array(readFileSync(corpus('ics', file))));
  const dates = [...text.matchAll(/\nDTSTART[^:\n]*:(\d{4})(\d{2})(\d{2})/g)].map((m) => Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  const first = dates.length ? Math.min(...dates) : Date.UTC(2020, 0, 1);
  return { from: new Date(first - 2 * 86_400_000), to: new Date(first + 400 * 86_400_000) };
}

describe('every corpus ICS file through the whole pipeline into a sandbox site', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  const reports = new Map<string, ReportJson | Error>();
  const params = (file: string, window = windowFor(file)): IcsImportParams => ({
    location: corpus('ics', file),
    site: env.site,
    sourceKey: slugify(file.replace(/\.ics$/, ''), 50),
    lang: 'en',
    window,
    retire: 'keep',
    onEdit: 'overwrite',
    defaultTimezone: 'UTC',
    status: 'publish',
    createTerms: true,
    categoriesAs: 'categories',
    dryRun: false,
    allowFiles: true,
  });
  const eventsOf = (file: string) => (env.sandbox.dump('en').events as any[]).filter((e) => e.slug.startsWith(`${slugify(file.replace(/\.ics$/, ''), 50)}-`));

  beforeAll(async () => {
    env = await testSite();
  });
  afterAll(async () => env.close());

  it.each(FILES)('%s imports, or fails with a named reason; every item is accounted for', async (file) => {
    const started = Date.now();
    let report: ReportJson;
    try {
      report = await runIcsImport(params(file));
    } catch (err) {
      // A run may only fail as a whole when the file's golden records that refusal.
      expect(err).toBeInstanceOf(RunFailedError);
      const refusal = corpusRefusal('ics', file);
      expect(refusal, `${file} was refused, but its golden says it is read: ${(err as Error).message}`).toBeDefined();
      expect((err as Error).message).toContain(refusal);
      reports.set(file, err as Error);
      return;
    }
    reports.set(file, report);
    const c = report.counts.events;
    expect(c.read).toBe(c.created + c.updated + c.unchanged + c.skipped + c.failed);
    for (const item of report.items) if (item.outcome === 'failed' || item.outcome === 'skipped') expect(item.reason, `${item.slug} ${item.outcome}`).toBeTruthy();
    // Nothing duplicated: the site holds exactly the events this source created.
    expect(eventsOf(file)).toHaveLength(c.created);
    expect(Date.now() - started).toBeLessThan(60_000);
  });

  const at = (file: string, window: [string, string]) => runIcsImport({ ...params(file, { from: new Date(window[0]), to: new Date(window[1]) }), sourceKey: `x-${slugify(file, 40)}` });
  const xEvents = (file: string) => (env.sandbox.dump('en').events as any[]).filter((e) => e.slug.startsWith(`x-${slugify(file, 40)}-`));

  it('EXPECTATIONS 1: Kiev override replaces its occurrence: 4 events, 08-26 is "bla bla"', async () => {
    const f = 'google-kiev-daily-until-recurrence-id.ics';
    await at(f, ['2016-08-01', '2016-09-30']);
    const ev = xEvents(f).sort((a, b) => a.utc_start_date.localeCompare(b.utc_start_date));
    expect(ev.map((e) => e.utc_start_date)).toEqual(['2016-08-25 11:00:00', '2016-08-26 11:00:00', '2016-08-27 11:00:00', '2016-08-28 11:00:00']);
    expect(ev.map((e) => e.title)).toEqual(['repeated', 'bla bla', 'repeated', 'repeated']);
  });

  it('EXPECTATIONS 2: DAVx5 weekly series with UTC EXDATEs across DST: 7 events at 16:15 Berlin', async () => {
    const f = 'davx5-weekly-utc-exdates-across-dst.ics';
    await at(f, ['2019-10-01', '2020-03-01']);
    const ev = xEvents(f).sort((a, b) => a.utc_start_date.localeCompare(b.utc_start_date));
    expect(ev.map((e) => e.start_date.slice(0, 10))).toEqual(['2019-10-29', '2019-11-12', '2019-12-10', '2020-01-07', '2020-01-14', '2020-01-21', '2020-01-28']);
    expect(new Set(ev.map((e) => `${e.start_date.slice(11)}-${e.end_date.slice(11)} ${e.timezone}`))).toEqual(new Set(['16:15:00-17:45:00 Europe/Berlin']));
  });

  it('EXPECTATIONS 4: every moved instance lands on its new date, months after the rule ends', async () => {
    const f = 'gototraining-daily-interval12-count11-moved-overrides.ics';
    await at(f, ['2018-01-01', '2018-12-31']);
    const utc = xEvents(f).map((e) => e.utc_start_date).sort();
    expect(utc).toEqual([
      '2018-01-19 08:30:00', '2018-02-01 08:00:00', '2018-03-21 08:00:00', '2018-04-16 07:00:00', '2018-05-03 07:00:00', '2018-07-23 07:00:00',
      '2018-08-09 07:00:00', '2018-09-24 07:00:00', '2018-10-18 07:00:00', '2018-11-05 08:00:00', '2018-12-03 08:00:00',
    ]);
  });

  it('EXPECTATIONS 5: COUNT counts excluded instances: 5 Brisbane events 12:00-13:00', async () => {
    const f = 'apple-ical2-brisbane-exdate.ics';
    await at(f, ['2005-12-01', '2006-02-01']);
    const ev = xEvents(f).sort((a, b) => a.start_date.localeCompare(b.start_date));
    expect(ev.map((e) => e.start_date)).toEqual(['2006-01-01 12:00:00', '2006-01-02 12:00:00', '2006-01-05 12:00:00', '2006-01-06 12:00:00', '2006-01-07 12:00:00']);
    expect(ev.every((e) => e.utc_start_date.endsWith('02:00:00') && e.end_date.endsWith('13:00:00'))).toBe(true);
  });

  it('EXPECTATIONS 7: a UTF-16 file yields its 10 occurrences at 02:00 Paris', async () => {
    const f = 'windows-calendar-utf16le-bom-crlf.ics';
    await at(f, ['2009-12-01', '2010-01-31']);
    const ev = xEvents(f);
    expect(ev).toHaveLength(10);
    expect(new Set(ev.map((e) => `${e.start_date.slice(11)} ${e.utc_start_date.slice(11)}`))).toEqual(new Set(['02:00:00 01:00:00']));
  });

  it('EXPECTATIONS 8: UTF-16 without BOM, custom VTIMEZONE: 15 lectures with the right text and instants', async () => {
    const f = 'campusnet-university-timetable-utf16le-no-bom.ics';
    await at(f, ['2019-06-01', '2019-08-31']);
    const ev = xEvents(f).sort((a, b) => a.utc_start_date.localeCompare(b.utc_start_date));
    expect(ev).toHaveLength(15);
    expect(ev[0].title).toBe('Übungen zu Interaktionsdesign');
    expect(ev[0].utc_start_date).toBe('2019-07-02 10:15:00');
    expect(ev[0].venue.venue).toContain('D-118/119;G-203');
    expect(ev[14].title).toBe('Klausur: Interaktionsdesign');
    expect(ev[14].utc_start_date).toBe('2019-07-29 07:30:00');
  });

  it('EXPECTATIONS 11: all-day Exchange series with a moved instance: 02-26 absent, 02-27 present', async () => {
    const f = 'exchange2010-allday-weekly-moved-override.ics';
    await at(f, ['2026-02-01', '2026-09-30']);
    const days = xEvents(f).map((e) => e.start_date.slice(0, 10));
    expect(days).not.toContain('2026-02-26');
    expect(days).toContain('2026-02-27');
    expect([51, 52]).toContain(days.length);
    expect(xEvents(f).every((e) => e.all_day === true && e.start_date.endsWith('00:00:00') && e.end_date.slice(0, 10) === e.start_date.slice(0, 10))).toBe(true);
  });

  it('regression: a VEVENT without SUMMARY was failed ("no SUMMARY"); it reaches the site as "(No title)" and the report warns', async () => {
    const f = 'exchange2010-blank-tzid-attach-cid.ics';
    const report = await at(f, ['2015-08-01', '2015-09-30']);
    expect(report.counts.events).toMatchObject({ created: 1, failed: 0 });
    expect(xEvents(f).map((e) => e.title)).toEqual(['(No title)']);
    expect(report.warnings.join('\n')).toMatch(/VEVENT #1 at line 18 \(UID t21ocubdt9jagerldbkak7uhcg@google.com\): no SUMMARY/);
  });

  it('refused exactly the files whose goldens record a refusal', () => {
    const failedRuns = [...reports].filter(([, r]) => r instanceof Error).map(([f]) => f);
    expect(reports.size).toBe(FILES.length);
    expect(failedRuns).toEqual(FILES.filter((f) => corpusRefusal('ics', f) !== undefined));
  });
});
