import { describe, expect, it } from 'vitest';
import { CalendarClient, type RequestInfo } from '../../src/api/index.ts';
import type { EventDraft, Normalized } from '../../src/model/draft.ts';
import { RunReport } from '../../src/report/report.ts';
import { MemoryLedger } from '../../src/write/ledger.ts';
import { SiteWriter } from '../../src/write/writer.ts';
import { testSite } from '../support/site.ts';

/** Event i links two new categories, `Cat i` and `Cat i+1`, and a tag: 7 new terms for 5 events. */
function draft(i: number): Normalized<EventDraft> {
  const d = `2025-06-${String(1 + i).padStart(2, '0')}`;
  return {
    ok: true,
    draft: {
      identity: `ev-${i}`, title: `Event ${i}`, timezone: 'UTC', all_day: false, start_date: `${d} 10:00:00`, end_date: `${d} 11:00:00`,
      categories: [{ name: `Cat ${i}` }, { name: `Cat ${i + 1}` }], tags: [{ name: `Tag ${i % 2}` }], organizers: [],
      cancelled: false, origin: { source: 'test' },
    },
  };
}

describe('the new terms of a batch', () => {
  it('regression: terms were created in rounds (an event\'s second category after its first) before any event was written; now side by side', async () => {
    const env = await testSite({ latencyMs: 150 });
    const calls: Array<{ method: string; route: string; start: number; end: number }> = [];
    const onRequest = (r: RequestInfo) => {
      const end = performance.now();
      calls.push({ method: r.method, route: r.route, start: end - r.durationMs, end });
    };
    const client = new CalendarClient({ ...env.site.connection, onRequest });
    try {
      const report = new RunReport({ id: 'r', kind: 'import-ics', source: 'test', site: 's', language: 'en', dryRun: false });
      const writer = new SiteWriter({ client, ledger: new MemoryLedger(), report, sourceKey: 'test', lang: 'en', concurrency: 8 });
      const items = Array.from({ length: 5 }, (_, i) => draft(i));
      await writer.prime(items);
      await writer.writeEvents(items);
      const creates = calls.filter((c) => c.method === 'POST' && (c.route === '/categories' || c.route === '/tags'));
      expect(creates).toHaveLength(8); // Cat 0..5, Tag 0, Tag 1
      // One round: every term create started before any of them ended.
      const firstEnd = Math.min(...creates.map((c) => c.end));
      for (const c of creates) expect(c.start).toBeLessThan(firstEnd);
      // Every event links both of its categories and its tag.
      expect(report.counts.events.created).toBe(5);
      for await (const e of client.events.iterate({ start_date: '2025-06-01', end_date: '2025-06-30' })) {
        expect(e.categories.length, e.title).toBe(2);
        expect(e.tags.length, e.title).toBe(1);
      }
    } finally {
      await client.close();
      await env.close();
    }
  });
});
