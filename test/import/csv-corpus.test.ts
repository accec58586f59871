import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Papa from 'papaparse';
import { runCsvImport, type CsvImportParams } from '../../src/runs/import-csv.ts';
import { RunFailedError } from '../../src/runs/context.ts';
import { slugify } from '../../src/model/identity.ts';
import { DATA_ROWS, MAPPINGS } from '../csv/helpers.ts';
import { corpusRefusal } from '../support/golden.ts';
import { corpus, testSite } from '../support/site.ts';

const FILES = readdirSync(corpus('csv')).filter((f) => f.endsWith('.csv')).sort();

describe('every corpus CSV through the whole pipeline into a sandbox site', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  const out = mkdtempSync(path.join(tmpdir(), 'calsync-rejects-'));
  const params = (file: string, over: Partial<CsvImportParams> = {}): CsvImportParams => ({
    location: corpus('csv', file),
    site: env.site,
    kind: 'events',
    sourceKey: slugify(file.replace(/\.csv$/, ''), 50),
    lang: 'en',
    mapping: MAPPINGS[file],
    defaultTimezone: 'UTC',
    status: 'publish',
    createTerms: true,
    dryRun: false,
    chunkSize: 50,
    rejectsPath: path.join(out, `${file}.rejects.csv`),
    allowFiles: true,
    ...over,
  });

  beforeAll(async () => {
    env = await testSite();
  });
  afterAll(async () => env.close());

  it.each(FILES)('%s: every data row is created or rejected with its line and reason', async (file) => {
    const before = env.sandbox.dump('en').events.length;
    let report;
    try {
      report = await runCsvImport(params(file));
    } catch (err) {
      // Only a refusal the file's golden records (read with its --map, if it has one) may end the run.
      expect(err, String(err)).toBeInstanceOf(RunFailedError);
      const refusal = corpusRefusal('csv', file);
      expect(refusal, `${file} was refused, but its golden says it is read: ${(err as Error).message}`).toBeDefined();
      expect((err as Error).message).toContain(refusal);
      return;
    }
    const c = report.counts.events;
    expect(c.read).toBe(DATA_ROWS[file]);
    expect(c.read).toBe(c.created + c.updated + c.unchanged + c.skipped + c.failed);
    expect(env.sandbox.dump('en').events.length - before).toBe(c.created);
    if (c.failed > 0) {
      const text = readFileSync(report.rejectsFile!, 'utf8');
      expect(text.charCodeAt(0)).toBe(0xfeff); // BOM so spreadsheet apps read UTF-8
      const rows = Papa.parse<string[]>(text.slice(1), { skipEmptyLines: true }).data;
      const head = rows[0]!;
      expect(head.slice(-2)).toEqual(['line', 'reason']);
      expect(rows.length - 1).toBe(c.failed);
      for (const r of rows.slice(1)) {
        expect(Number(r[head.length - 2])).toBeGreaterThan(0);
        expect(r[head.length - 1]!.length).toBeGreaterThan(3);
      }
    }
  });

  it('the Yahoo export lands as 10 all-day and 5 timed events', async () => {
    const file = 'yahoo-calendar-export-allday-and-ampm-times.csv';
    const mine = (env.sandbox.dump('en').events as any[]).filter((e) => e.slug.startsWith(`${slugify(file.replace(/\.csv$/, ''), 50)}-`));
    expect(mine).toHaveLength(15);
    expect(mine.filter((e) => e.all_day)).toHaveLength(10);
    const drupal = mine.find((e) => e.title === 'Do It With Drupal');
    expect([drupal.start_date, drupal.end_date]).toEqual(['2008-12-10 08:00:00', '2008-12-10 17:00:00']);
  });

  it('Windows-1252 Norwegian text arrives intact', () => {
    const titles = (env.sandbox.dump('en').events as any[]).map((e) => e.title);
    expect(titles).toContain('Østmarkrittet 2014');
    expect(titles.some((t: string) => t.includes('Sparebankløpet'))).toBe(true);
  });

  it('a dry run reports what would happen and writes nothing', async () => {
    env.sandbox.resetStats();
    const r = await runCsvImport(params('the-events-calendar-timezone-column-utc-offsets.csv', { sourceKey: 'dry', dryRun: true, rejectsPath: undefined }));
    expect(r.counts.events.created).toBe(4);
    expect(env.sandbox.stats().writes).toBe(0);
  });
  // Re-import idempotence (Redis, chunks, workers, counted writes): test/regressions/csv-reimport-idempotent.test.ts
});
