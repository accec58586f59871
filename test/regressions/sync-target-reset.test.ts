import { describe, expect, it } from 'vitest';
import type { EventRecord } from '../../src/api/index.ts';
import { runSiteSync } from '../../src/runs/sync-site.ts';
import { testPrefix } from '../support/redis.ts';
import { seedSite } from '../support/seed.ts';
import { pairSyncParams, useSitePair, type SitePair } from '../support/site-pair.ts';

/**
 * The sync side of test/regressions/site-reset-ledger-kept.test.ts: a target site reset (or restored
 * from an older backup) while Redis was kept. The resync took every event for unchanged from its
 * ledger and sent the target no request at all, so the target stayed empty. Now each language's
 * planner reads one record of the ledger back from the target first; when the target has none of
 * the records it reads, the sync's ledgers of the target (events, venues, organizers, and the term
 * map) are set aside and everything is copied again.
 */
describe('regression: a resync into a target reset while Redis was kept copied nothing', () => {
  let pair: SitePair;
  useSitePair((p) => (pair = p));
  const PER_LANG = 12;

  it('the resync copies every event again, once, with its terms, venue and organizer; the next one is a no-change resync again', async () => {
    const { source, target, redis } = pair;
    await seedSite(source.client, ['en'], PER_LANG);
    const prefix = testPrefix();
    const params = pairSyncParams(pair);
    const live = () => (target.sandbox.dump('en').events as EventRecord[]).filter((e) => e.status !== 'trash');
    expect((await runSiteSync(params, { redis, prefix })).counts.events.created).toBe(PER_LANG);
    await fetch(`${target.sandbox.origin}/__sandbox/reset`, { method: 'POST' });

    const r = await runSiteSync(params, { redis, prefix });
    expect(r.counts.events).toMatchObject({ created: PER_LANG, unchanged: 0, failed: 0 });
    expect(r.warnings.filter((w) => w.startsWith('the site no longer has the events calsync wrote there for the sync from source'))).toHaveLength(1);
    const copied = live();
    expect(copied).toHaveLength(PER_LANG);
    // Terms, venues and organizers were made again on the target, and the events name them.
    expect(copied.every((e) => e.categories.length > 0 && e.categories.every((c) => c.name.length > 0))).toBe(true);
    expect(copied.filter((e) => !Array.isArray(e.venue)).length).toBeGreaterThan(0);
    expect((target.sandbox.dump('en').venues as unknown[]).length).toBe(3);

    target.sandbox.resetStats();
    const again = await runSiteSync(params, { redis, prefix });
    expect(again.counts.events).toMatchObject({ unchanged: PER_LANG, created: 0 });
    expect(again.warnings.filter((w) => w.includes('no longer has'))).toEqual([]);
    // The one read that says the ledger holds, and no write.
    expect(target.sandbox.stats().byRoute['GET /events/:id']).toBe(1);
    expect(target.sandbox.stats().writes).toBe(0);
  });
});
