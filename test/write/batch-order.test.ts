import { describe, expect, it } from 'vitest';
import { CalendarClient } from '../../src/api/index.ts';
import { RunReport } from '../../src/report/report.ts';
import { MemoryLedger } from '../../src/write/ledger.ts';
import { SiteWriter } from '../../src/write/writer.ts';
import { eventItem } from '../support/drafts.ts';
import { testSite } from '../support/site.ts';

describe('two overlapping write batches', () => {
  it('regression: overlapping batches took turns at the request slots, ended together, and left the site idle while the next two were planned; the earlier batch now writes first', async () => {
    const env = await testSite({ latencyMs: 5 });
    const client = new CalendarClient(env.site.connection);
    try {
      const report = new RunReport({ id: 'r', kind: 'import-ics', source: 'test', site: 's', language: 'en', dryRun: false });
      const writer = new SiteWriter({ client, ledger: new MemoryLedger(), report, sourceKey: 'test', lang: 'en', concurrency: 2 });
      // No links: nothing makes an event wait for another, so the order is the slots' alone.
      const plain = (i: number) => eventItem(i, { venue: undefined, organizers: [], categories: [] });
      const first = Array.from({ length: 20 }, (_, i) => plain(i));
      const second = Array.from({ length: 20 }, (_, i) => plain(20 + i));
      await writer.prime([...first, ...second]);
      // As import-ics.ts overlaps them: the second batch starts while the first is being written.
      await Promise.all([writer.writeEvents(first), writer.writeEvents(second)]);
      expect(report.counts.events).toMatchObject({ created: 40, failed: 0 });
      // The site numbers records in the order it creates them.
      const d = env.sandbox.dump('en') as unknown as { events: Array<{ id: number; slug: string }> };
      const order = [...d.events].sort((a, b) => a.id - b.id).map((e) => e.slug);
      const firstSlugs = new Set(first.map((it) => (it.ok ? it.draft.slug : '')));
      expect(order.slice(0, 20).filter((s) => !firstSlugs.has(s)), order.join(' ')).toEqual([]);
    } finally {
      await client.close();
      await env.close();
    }
  });
});
