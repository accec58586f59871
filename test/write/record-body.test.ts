import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventCostText } from '../../src/api/index.ts';
import { MemoryLedger } from '../../src/write/ledger.ts';
import { retireVanished } from '../../src/write/retire.ts';
import { RunReport } from '../../src/report/report.ts';
import { testSite } from '../support/site.ts';

/**
 * One record → cost mapping (eventCostText) for both places that rewrite a site's record: the
 * retire guard's "set to draft" (same site, src/write/record-body.ts) and the site-to-site sync
 * (src/sources/site/normalize.ts). Both must send what makes the site show what it showed.
 */
describe('record cost → write body', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  beforeAll(async () => {
    env = await testSite();
  });
  afterAll(() => env.close());

  const costs = ['€25', '10 – 20 €', '15', '10, 20', '0', 'Donation'];

  it('writing eventCostText back leaves the displayed cost and its details as they were', async () => {
    for (const [i, cost] of costs.entries()) {
      const { record } = await env.client.events.upsertBySlug(`cost-roundtrip-${i}`, { title: `cost ${i}`, timezone: 'UTC', start_date: '2031-06-01 10:00:00', end_date: '2031-06-01 11:00:00', cost });
      const again = await env.client.events.update(record.id, { title: record.title, timezone: 'UTC', start_date: record.start_date, end_date: record.end_date, cost: eventCostText(record) ?? '' });
      expect({ cost, shown: again.cost, details: again.cost_details }).toEqual({ cost, shown: record.cost, details: record.cost_details });
    }
  });

  it('regression: retiring with --retire draft rewrote a "€25" event as "$25" (record-body joined the cost values without their currency symbol)', async () => {
    const { record } = await env.client.events.upsertBySlug('cost-euro-draft', { title: 'Euro', timezone: 'UTC', start_date: '2031-06-02 10:00:00', end_date: '2031-06-02 11:00:00', cost: '€25' });
    expect(record.cost).toBe('€25');
    const ledger = new MemoryLedger();
    await ledger.set('events', 'cost-euro-draft', { fp: 'x', id: record.id, start: '2031-06-02T10:00:00Z', at: new Date().toISOString() });
    const report = new RunReport({ id: 'r', kind: 'import-ics', source: 'test', site: 's', language: 'en', dryRun: false });
    await retireVanished({ client: env.client, ledger, report, policy: 'draft', seen: new Set(), cancelled: new Set(), force: true });
    const after = await env.client.events.get(record.id);
    expect(after.status).toBe('draft');
    expect(after.cost).toBe('€25');
  });
});
