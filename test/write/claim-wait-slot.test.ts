import { describe, expect, it } from 'vitest';
import { CalendarClient, type RequestInfo } from '../../src/api/index.ts';
import type { EventDraft, Normalized, VenueDraft } from '../../src/model/draft.ts';
import { RunReport } from '../../src/report/report.ts';
import { MemoryLedger } from '../../src/write/ledger.ts';
import { SiteWriter } from '../../src/write/writer.ts';
import { testSite } from '../support/site.ts';

const hall = (name: string): VenueDraft => ({ identity: name, venue: name, city: 'Lyon' });

function draft(i: number, venue: VenueDraft): Normalized<EventDraft> {
  const d = `2025-06-${String(1 + i).padStart(2, '0')}`;
  return {
    ok: true,
    draft: {
      identity: `ev-${i}`, title: `Event ${i}`, timezone: 'UTC', all_day: false, start_date: `${d} 10:00:00`, end_date: `${d} 11:00:00`,
      categories: [], tags: [], venue, organizers: [], cancelled: false, origin: { source: 'test' },
    },
  };
}

describe('request slots while an event waits for a venue another event creates', () => {
  it('regression: an event waiting for its new venue (created inside another event\'s write) held a request slot idle; the slot now carries the next event', async () => {
    const env = await testSite({ latencyMs: 200 });
    const events: Array<{ start: number; end: number }> = [];
    const onRequest = (r: RequestInfo) => {
      const end = performance.now();
      if (r.method === 'POST' && r.route === '/events') events.push({ start: end - r.durationMs, end });
    };
    const client = new CalendarClient({ ...env.site.connection, onRequest });
    try {
      const report = new RunReport({ id: 'r', kind: 'import-ics', source: 'test', site: 's', language: 'en', dryRun: false });
      const writer = new SiteWriter({ client, ledger: new MemoryLedger(), report, sourceKey: 'test', lang: 'en', concurrency: 2 });
      // Events 0 and 1 share a new venue (event 0 creates it inline, event 1 waits for it);
      // events 2 and 3 have venues of their own.
      const shared = hall('Shared Hall');
      const items = [draft(0, shared), draft(1, shared), draft(2, hall('Hall Two')), draft(3, hall('Hall Three'))];
      await writer.prime(items);
      await writer.writeEvents(items);
      expect(report.counts.events).toMatchObject({ created: 4, failed: 0 });
      expect(report.counts.venues.created).toBe(3);
      events.sort((a, b) => a.start - b.start);
      // With 2 slots, the second request leaves while the first (event 0's) is still out.
      expect(events[1]!.start, JSON.stringify(events)).toBeLessThan(events[0]!.end);
      const d = env.sandbox.dump('en') as unknown as { events: Array<{ slug: string; venue: { id: number } | [] }> };
      expect(d.events.every((e) => !Array.isArray(e.venue))).toBe(true);
    } finally {
      await client.close();
      await env.close();
    }
  });
});
