import { afterEach, describe, expect, it } from 'vitest';
import { runIcsImport } from '../../src/runs/import-ics.ts';
import { generateIcsFeed } from '../support/generate-ics.ts';
import { feedServer, testSite } from '../support/site.ts';

describe('regression: a cancelled ICS import (the worker shutdown cut it off) went on writing until the end of its batch, which held the whole feed', () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of closers.splice(0)) await c();
  });

  it('stops at the next write once its signal is aborted, and a rerun writes the rest', async () => {
    const env = await testSite({ latencyMs: 60 });
    const feed = await feedServer(generateIcsFeed({ events: 200, seed: 5, recurringShare: 0, start: new Date(Date.UTC(2027, 0, 4)), days: 200 }));
    closers.push(() => env.close(), () => feed.close());
    const concurrency = 2;
    const site = { ...env.site, concurrency, connection: { ...env.site.connection, connections: concurrency } };
    const params = {
      location: feed.url, site, sourceKey: 'cut', lang: 'en' as const, window: { from: new Date('2027-01-01'), to: new Date('2027-12-31') }, retire: 'keep' as const, onEdit: 'overwrite' as const,
      defaultTimezone: 'UTC', status: 'publish' as const, createTerms: true, categoriesAs: 'categories' as const, dryRun: false, allow: [new URL(feed.url).host],
    };
    const ac = new AbortController();
    let writes = 0;
    let afterAbort = 0;
    const counted = { ...site, connection: { ...site.connection, onRequest: (r: { method: string }) => {
      if (r.method === 'GET') return;
      if (ac.signal.aborted) afterAbort++;
      else if (++writes === 20) ac.abort('cut off');
    } } };
    const t0 = Date.now();
    const err = await runIcsImport({ ...params, site: counted }, { signal: ac.signal }).catch((e: unknown) => e);
    const took = Date.now() - t0;
    // The abort's reason, or the run's "aborted" failure, depending on where it was seen.
    expect(err === 'cut off' || (err as { code?: string }).code === 'aborted').toBe(true);
    // Only the writes already in flight (two connections) ended after it: before the fix, the
    // batch's remaining venues and organizers were all created (148 writes).
    expect(afterAbort).toBeLessThanOrEqual(2 * concurrency + 1);
    // 200 writes at 60 ms, two at a time, take about 6 s: it stopped soon after the 20th.
    expect(env.sandbox.dump('en').events.length).toBeLessThan(60);
    expect(took).toBeLessThan(4_000);
    const rerun = await runIcsImport(params);
    expect(rerun.counts.events.failed).toBe(0);
    expect(env.sandbox.dump('en').events.length).toBe(rerun.counts.events.read);
  }, 60_000);
});
