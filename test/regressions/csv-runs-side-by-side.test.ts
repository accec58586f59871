import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.ts';
import type { ReportJson } from '../../src/report/report.ts';
import { importWorkers, type ImportWorkers } from '../support/import-workers.ts';
import { testPrefix } from '../support/redis.ts';
import { PASSWORD, USER, testSite } from '../support/site.ts';

/**
 * Found running calsync as a service against real TEC sites: two runs of one CSV source enqueued at
 * once ran side by side (the ICS import holds a run lock per source; the CSV flow held none). Both
 * wrote the same new rows: 300 new rows came out as 285 + 15 created, the second copy of each row
 * trashed by the collision path, 113 such posts in the site's trash after two tries, and both runs
 * reported the same 3 venues as created. A CSV run now holds its source's lock from its planner to
 * its finish job; the second run waits for it, then finds every row unchanged.
 */
describe('regression: two runs of one CSV source wrote the same rows side by side', () => {
  let site: Awaited<ReturnType<typeof testSite>>;
  let workers: ImportWorkers;
  const ROWS = 60;
  beforeAll(async () => {
    site = await testSite();
    const dir = mkdtempSync(path.join(tmpdir(), 'calsync-csv-twice-'));
    const file = path.join(dir, 'seminars.csv');
    writeFileSync(file, 'Event Name,Event Start Date,Event Start Time,Event Venue Name\n' + Array.from({ length: ROWS }, (_, i) => `Seminar ${i},2027-06-${String(1 + (i % 28)).padStart(2, '0')},10:00,Room ${i % 3}`).join('\n') + '\n');
    process.env.SB_PW_TWICE = PASSWORD;
    const config = parseConfig({
      sites: [{ name: 'sb', restRoot: site.sandbox.url, auth: { user: USER, passwordEnv: 'SB_PW_TWICE' }, concurrency: 4 }],
      sources: [{ name: 'seminars', kind: 'csv' as const, site: 'sb', url: file, chunkSize: 10, defaultTimezone: 'UTC' }],
      worker: { concurrency: { import: 6 } },
    });
    workers = await importWorkers(config, testPrefix());
  });
  afterAll(async () => {
    await workers.close();
    await site.close();
  });

  it('the second run waits for the first, then finds every row unchanged; each row and venue is created once', { timeout: 90_000 }, async () => {
    const run = async (): Promise<ReportJson> => {
      const planner = await workers.queue.add('import-csv', { source: 'seminars' }, { attempts: 1 });
      const planned = (await planner.waitUntilFinished(workers.events, 60_000)) as { finishJobId: string };
      return (await (await workers.queue.getJob(planned.finishJobId))!.waitUntilFinished(workers.events, 60_000)) as ReportJson;
    };
    const [a, b] = await Promise.all([run(), run()]);
    const [first, second] = a.counts.events.created > 0 ? [a, b] : [b, a];
    expect(first.counts.events).toMatchObject({ created: ROWS, updated: 0, failed: 0 });
    expect(second.counts.events).toMatchObject({ created: 0, updated: 0, unchanged: ROWS, failed: 0 });
    expect(first.counts.venues.created + second.counts.venues.created).toBe(3);
    const events = site.sandbox.dump('en').events as Array<{ status: string }>;
    expect(events.filter((e) => e.status === 'publish')).toHaveLength(ROWS);
    expect(events.filter((e) => e.status === 'trash')).toHaveLength(0);
    expect(site.sandbox.stats().byRoute['POST /events'] ?? 0).toBeLessThanOrEqual(ROWS);
  });
});
