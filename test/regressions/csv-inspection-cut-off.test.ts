import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvOpener, inspect, type CsvImportParams } from '../../src/runs/import-csv.ts';
import { writeEventsCsv } from '../support/generate-csv.ts';
import { feedServer, testSite } from '../support/site.ts';

/**
 * Regression: a queued CSV planner cut off by its worker's shutdown (its job's signal) while it read
 * the file for inspection went on reading to the end: the opener's streams did not take the signal,
 * and a fetched body came as one chunk. A big file then outlasted the shutdown's grace. Now every
 * stream the opener makes ends at the signal, a fetched body in 64 KiB slices.
 */
describe('regression: the CSV planner read the whole file for inspection after its job was cut off', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  let file: string;
  let served: Awaited<ReturnType<typeof feedServer>>;
  beforeAll(async () => {
    env = await testSite();
    file = path.join(mkdtempSync(path.join(tmpdir(), 'calsync-cut-')), 'events.csv');
    await writeEventsCsv(file, { rows: 5000, seed: 3 });
    served = await feedServer(readFileSync(file, 'utf8'));
  });
  afterAll(async () => {
    await served.close();
    await env.close();
  });
  const params = (location: string): CsvImportParams => ({
    location, site: env.site, kind: 'events', sourceKey: 'cut', lang: 'en', status: 'publish', createTerms: true, dryRun: false, chunkSize: 500,
    allowFiles: true, allow: [new URL(served.url).host],
  });

  for (const where of ['a local file', 'a fetched URL'] as const) {
    it(`${where}: inspection stops at the signal`, async () => {
      const location = where === 'a local file' ? file : served.url;
      const ctl = new AbortController();
      const open = await csvOpener(params(location), ctl.signal);
      // Uncut, the same opener inspects the whole file.
      expect((await inspect(params(location), await csvOpener(params(location)))).rows).toBe(5000);
      ctl.abort(new Error('cut off at shutdown'));
      await expect(inspect(params(location), open)).rejects.toThrow(/abort|cut off/i);
    });
  }
});
