import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.ts';
import { formatReport, type ReportJson } from '../../src/report/report.ts';
import { runCsvImport, type CsvImportParams } from '../../src/runs/import-csv.ts';
import { runIcsImport } from '../../src/runs/import-ics.ts';
import { importWorkers, type ImportWorkers } from '../support/import-workers.ts';
import { testPrefix } from '../support/redis.ts';
import { PASSWORD, USER, testSite } from '../support/site.ts';

/**
 * Found running calsync as a service: every ICS and CSV report said "floating times read in <zone>
 * (the site's zone …)", also for a feed whose times all carry a TZID or a Z, or a CSV whose rows all
 * name their zone. The line must appear only when some time really was read in that zone.
 */
const ics = (lines: string[]): string => ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//t//EN', ...lines, 'END:VCALENDAR', ''].join('\r\n');
const vevent = (uid: string, start: string, end: string): string[] => ['BEGIN:VEVENT', `UID:${uid}`, `SUMMARY:${uid}`, start, end, 'END:VEVENT'];
const FEEDS: Record<string, { text: string; floating: boolean }> = {
  utc: { text: ics(vevent('utc-1', 'DTSTART:20270310T090000Z', 'DTEND:20270310T100000Z')), floating: false },
  tzid: { text: ics(vevent('tzid-1', 'DTSTART;TZID=America/New_York:20270310T090000', 'DTEND;TZID=America/New_York:20270310T100000')), floating: false },
  allday: { text: ics(vevent('day-1', 'DTSTART;VALUE=DATE:20270310', 'DTEND;VALUE=DATE:20270311')), floating: false },
  // Floating, but the feed says its own zone: read in Europe/Paris, not in the site's zone.
  xwr: { text: ics(['X-WR-TIMEZONE:Europe/Paris', ...vevent('xwr-1', 'DTSTART:20270310T090000', 'DTEND:20270310T100000')]), floating: false },
  floating: { text: ics([...vevent('zoned-1', 'DTSTART:20270310T090000Z', 'DTEND:20270310T100000Z'), ...vevent('float-1', 'DTSTART:20270311T090000', 'DTEND:20270311T100000')]), floating: true },
};
const CSVS: Record<string, { text: string; floating: boolean }> = {
  zoned: { text: 'title,start_date,end_date,timezone\nTalk,2027-03-10 09:00,2027-03-10 10:00,America/New_York\nWalk,2027-03-11 09:00,2027-03-11 10:00,UTC\n', floating: false },
  allday: { text: 'title,start_date,end_date\nFair,2027-03-10,2027-03-11\n', floating: false },
  floating: { text: 'title,start_date,end_date,timezone\nTalk,2027-03-10 09:00,2027-03-10 10:00,America/New_York\nWalk,2027-03-11 09:00,2027-03-11 10:00,\n', floating: true },
};
const LINE = 'floating times read in Europe/Berlin';

function expectZoneLine(r: ReportJson, floating: boolean): void {
  if (floating) {
    expect(r.defaultTimezone).toEqual({ zone: 'Europe/Berlin', from: "the site's zone, from its timezone_string" });
    expect(formatReport(r)).toContain(LINE);
  } else {
    expect(r.defaultTimezone).toBeUndefined();
    expect(formatReport(r)).not.toContain('floating times');
  }
}

describe('regression: "floating times read in <zone>" was printed for a feed with no floating time', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  let dir: string;
  beforeAll(async () => {
    env = await testSite({ siteTimezone: 'Europe/Berlin' });
    dir = mkdtempSync(path.join(tmpdir(), 'calsync-floating-line-'));
  });
  afterAll(async () => {
    await env.close();
  });
  const file = (name: string, text: string): string => {
    const f = path.join(dir, name);
    writeFileSync(f, text);
    return f;
  };

  it.each(Object.entries(FEEDS))('ICS feed %s', async (name, { text, floating }) => {
    const r = await runIcsImport({
      location: file(`${name}.ics`, text), site: env.site, sourceKey: `ics-${name}`, lang: 'en', window: { from: new Date('2027-01-01T00:00:00Z'), to: new Date('2027-12-31T00:00:00Z') },
      retire: 'keep', onEdit: 'overwrite', status: 'publish', createTerms: true, categoriesAs: 'categories', dryRun: false, allowFiles: true,
    });
    expect(r.counts.events.created).toBeGreaterThan(0);
    expectZoneLine(r, floating);
  });

  const csvParams = (location: string, sourceKey: string): CsvImportParams => ({
    location, site: env.site, kind: 'events', sourceKey, lang: 'en', status: 'publish', createTerms: true, dryRun: false, chunkSize: 1, allowFiles: true,
  });

  it.each(Object.entries(CSVS))('inline CSV %s', async (name, { text, floating }) => {
    const r = await runCsvImport(csvParams(file(`${name}.csv`, text), `csv-${name}`));
    expect(r.counts.events.created).toBeGreaterThan(0);
    expectZoneLine(r, floating);
  });

  it('queued CSV: said when a row was read in the site zone (the planner tells the finish job), not otherwise', { timeout: 60_000 }, async () => {
    process.env.SB_PW_FLOATLINE = PASSWORD;
    const config = parseConfig({
      sites: [{ name: 'sb', restRoot: env.sandbox.url, auth: { user: USER, passwordEnv: 'SB_PW_FLOATLINE' } }],
      // Titles of their own: the same rows under another source would be refused as a second copy.
      sources: Object.entries(CSVS).map(([name, { text }]) => ({ name: `q-${name}`, kind: 'csv' as const, site: 'sb', url: file(`q-${name}.csv`, text.replace(/\n(?=.)/g, `\n${name} `)), chunkSize: 1 })),
    });
    const workers: ImportWorkers = await importWorkers(config, testPrefix());
    try {
      for (const [name, { floating }] of Object.entries(CSVS)) {
        const planner = await workers.queue.add('import-csv', { source: `q-${name}` }, { attempts: 1 });
        const planned = (await planner.waitUntilFinished(workers.events, 30_000)) as { finishJobId: string };
        const finish = await workers.queue.getJob(planned.finishJobId);
        const r = (await finish!.waitUntilFinished(workers.events, 30_000)) as ReportJson;
        expect(r.counts.events.created, name).toBeGreaterThan(0);
        expectZoneLine(r, floating);
      }
    } finally {
      await workers.close();
    }
  });
});
