import { describe, expect, it } from 'vitest';
import { CalendarClient, type RequestInfo } from '../../src/api/index.ts';
import type { EventDraft, Normalized } from '../../src/model/draft.ts';
import { RunReport } from '../../src/report/report.ts';
import { MemoryLedger } from '../../src/write/ledger.ts';
import { SiteWriter } from '../../src/write/writer.ts';
import { testSite } from '../support/site.ts';

function draft(i: number): Normalized<EventDraft> {
  const d = `2025-06-${String(1 + (i % 28)).padStart(2, '0')}`;
  return {
    ok: true,
    draft: {
      identity: `ev-${i}`, title: `Event ${i}`, timezone: 'UTC', all_day: false, start_date: `${d} 10:00:00`, end_date: `${d} 11:00:00`,
      categories: [{ name: `Cat ${i % 3}` }], tags: [], venue: { identity: `Hall ${i}`, venue: `Hall ${i}` }, organizers: [{ identity: `Org ${i}`, organizer: `Org ${i}` }],
      cancelled: false, origin: { source: 'test' },
    },
  };
}

describe('the listings a first import reads before writing', () => {
  it('regression: events, venues, organizers and categories were listed in three rounds one after another; prime now lists them side by side', async () => {
    const env = await testSite({ latencyMs: 150 });
    const calls: Array<{ route: string; start: number; end: number }> = [];
    const onRequest = (r: RequestInfo) => {
      const end = performance.now();
      calls.push({ route: r.route, start: end - r.durationMs, end });
    };
    const client = new CalendarClient({ ...env.site.connection, onRequest });
    try {
      const report = new RunReport({ id: 'r', kind: 'import-ics', source: 'test', site: 's', language: 'en', dryRun: false });
      const writer = new SiteWriter({ client, ledger: new MemoryLedger(), report, sourceKey: 'test', lang: 'en', concurrency: 8 });
      await writer.prime(Array.from({ length: 6 }, (_, i) => draft(i)));
      const listings = ['/events', '/venues', '/organizers', '/categories'].map((route) => calls.find((c) => c.route === route));
      expect(listings.every((c) => c !== undefined), JSON.stringify(calls)).toBe(true);
      // Side by side: every listing started before any of them ended.
      const firstEnd = Math.min(...listings.map((c) => c!.end));
      for (const c of listings) expect(c!.start, c!.route).toBeLessThan(firstEnd);
    } finally {
      await client.close();
      await env.close();
    }
  });
});
