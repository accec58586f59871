import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { EventDraft, Normalized } from '../../src/model/draft.ts';
import { SiteWriter } from '../../src/write/writer.ts';
import { MemoryLedger, type Ledger } from '../../src/write/ledger.ts';
import { ledgerSnapshot } from '../../src/write/ledger-snapshot.ts';
import { RunReport } from '../../src/report/report.ts';
import { testSite } from '../support/site.ts';
import { eventItem as draft, hall, org } from '../support/drafts.ts';
import { DraftKeys, draftKey } from '../../src/write/draft-keys.ts';
import * as body from '../../src/write/body.ts';

/**
 * An unchanged re-import plans without awaits (links already resolved in the run), primes from a
 * ledger snapshot and reports unchanged events without a write task, and with DraftKeys (what the ICS
 * parser thread works out) it compares shapes and link keys instead of building bodies: none of those
 * shortcuts may hide a change. Each run here is a new SiteWriter over the same ledger, as a new import
 * would be.
 */

type Env = Awaited<ReturnType<typeof testSite>>;


/** The keys the ICS parser thread would send with these items. */
function keysOf(items: Normalized<EventDraft>[]): DraftKeys {
  const keys = new DraftKeys('test', 'publish');
  for (const it of items) if (it.ok) keys.set(it.draft, draftKey(it.draft, 'test', 'publish'));
  return keys;
}

/** One run: a fresh writer primed from a snapshot of the ledger, the items written in batches of 10. */
async function run(env: Env, ledger: Ledger, items: Normalized<EventDraft>[], withKeys = false) {
  const report = new RunReport({ id: 'r', kind: 'import-ics', source: 'test', site: 's', language: 'en', dryRun: false });
  const w = new SiteWriter({ client: env.client, ledger, report, sourceKey: 'test', lang: 'en', concurrency: 8, ...(withKeys ? { keys: keysOf(items) } : {}) });
  await w.prime(items, await ledgerSnapshot(ledger, 'events', 1000));
  for (let i = 0; i < items.length; i += 10) await w.writeEvents(items.slice(i, i + 10));
  return report;
}

describe.each([
  ['bodies built and hashed here', false],
  ['draft keys from the parser thread', true],
])('re-import change detection, %s', (_, withKeys) => {
  let env: Env;
  beforeEach(async () => {
    env = await testSite();
    return () => env.close();
  });

  it('an unchanged re-import writes nothing; a change of any one field or link of an event is written, and only that event', async () => {
    const ledger = new MemoryLedger();
    const items = Array.from({ length: 30 }, (_, i) => draft(i));
    expect((await run(env, ledger, items, withKeys)).counts.events).toMatchObject({ created: 30, failed: 0 });
    env.sandbox.resetStats();
    expect((await run(env, ledger, items, withKeys)).counts.events).toMatchObject({ unchanged: 30, updated: 0 });
    expect(env.sandbox.stats().writes).toBe(0);

    // One change per event, spread over the batches (after the first batch every link is resolved).
    const changes: Partial<EventDraft>[] = [
      { title: 'Renamed' }, { description: 'Other text' }, { start_date: '2025-06-01 09:00:00' }, { end_date: '2025-06-28 12:00:00' }, { timezone: 'UTC' },
      { all_day: true }, { cost: '5' }, { website: 'https://example.org' }, { excerpt: 'Short' }, { status: 'draft' }, { featured: true }, { sticky: true },
      { hide_from_listings: true }, { show_map: false }, { show_map_link: false },
      { venue: hall('East Hall') }, { venue: undefined }, { organizers: [org('Beta Org')] }, { organizers: [] }, { categories: [{ name: 'Theatre' }] }, { tags: [{ name: 'Outdoor' }] },
    ];
    const changed = items.map((it, i) => (i < changes.length ? draft(i, changes[i]) : it));
    const report = await run(env, ledger, changed, withKeys);
    expect(report.counts.events).toMatchObject({ updated: changes.length, unchanged: 30 - changes.length, failed: 0 });
    const updated = report.items.filter((x) => x.kind === 'events' && x.outcome === 'updated').map((x) => x.slug).sort();
    expect(updated).toEqual(changes.map((_, i) => `ev-${i}`).sort());
    // And the changes landed: the next run finds nothing to do.
    env.sandbox.resetStats();
    expect((await run(env, ledger, changed, withKeys)).counts.events).toMatchObject({ unchanged: 30 });
    expect(env.sandbox.stats().writes).toBe(0);
  });

  it('a venue whose id changed on the site (ledger entry replaced) is re-linked by the events of an otherwise unchanged re-import', async () => {
    const ledger = new MemoryLedger();
    const items = Array.from({ length: 12 }, (_, i) => draft(i));
    await run(env, ledger, items, withKeys);
    // The site lost the venue; calsync's ledger points at a new one (as after it recreated it).
    const other = await env.client.venues.create({ venue: 'North Hall Annex', status: 'publish' }, { lang: 'en' });
    const key = (await keys(ledger)).find((k) => k.startsWith('north-hall-'))!;
    const entry = (await ledger.getMany('venues', [key])).get(key)!;
    expect(entry.id).not.toBe(other.id);
    await ledger.set('venues', key, { ...entry, id: other.id });
    const report = await run(env, ledger, items, withKeys);
    // The odd events link North Hall: their link ids changed, so they are written.
    expect(report.counts.events).toMatchObject({ updated: 6, unchanged: 6 });
  });
});

describe('re-import with draft keys over a ledger written without them', () => {
  it('finds every event unchanged without a site write, and keeps the shapes so the run after needs no body', async () => {
    const env = await testSite();
    try {
      const ledger = new MemoryLedger();
      const items = Array.from({ length: 20 }, (_, i) => draft(i));
      await run(env, ledger, items);
      const before = await ledger.getMany('events', items.map((_, i) => `ev-${i}`));
      expect([...before.values()].every((e) => e.shape === undefined)).toBe(true);
      env.sandbox.resetStats();
      expect((await run(env, ledger, items, true)).counts.events).toMatchObject({ unchanged: 20, updated: 0 });
      expect(env.sandbox.stats().writes).toBe(0);
      const after = await ledger.getMany('events', items.map((_, i) => `ev-${i}`));
      for (const [slug, e] of after) expect(e, slug).toEqual({ ...before.get(slug), shape: expect.any(String), lids: expect.any(String) });
      // Now the bodies are not even built: the writer never calls eventBody for an unchanged event.
      const bodies = vi.spyOn(body, 'eventBody');
      expect((await run(env, ledger, items, true)).counts.events).toMatchObject({ unchanged: 20 });
      expect(bodies).not.toHaveBeenCalled();
    } finally {
      vi.restoreAllMocks();
      await env.close();
    }
  });
});

describe('re-import of venues and organizers', () => {
  it('reads the spellings recorded for its venues and organizers in one go instead of claiming each; a new one is still claimed', async () => {
    const env = await testSite();
    try {
      const ledger = new MemoryLedger();
      // Two venues and two organizers (a single one is not read ahead: LinkedResolver.prime).
      const items = Array.from({ length: 12 }, (_, i) => draft(i, { organizers: [org(i % 3 ? 'Alpha Org' : 'Beta Org')] }));
      await run(env, ledger, items);
      const claims = vi.spyOn(ledger, 'claimName');
      env.sandbox.resetStats();
      expect((await run(env, ledger, items)).counts.events).toMatchObject({ unchanged: 12 });
      expect(claims).not.toHaveBeenCalled();
      expect(env.sandbox.stats().writes).toBe(0);
      // A venue the ledger has no spelling for yet is claimed as before (and only that one).
      const withNew = [...items, draft(12, { venue: hall('West Hall') }), draft(13, { venue: hall('West Hall') })];
      expect((await run(env, ledger, withNew)).counts.events).toMatchObject({ unchanged: 12, created: 2 });
      expect(claims.mock.calls.map(([kind, , name]) => `${kind}:${name}`)).toEqual(['venues:West Hall']);
    } finally {
      await env.close();
    }
  });
});

async function keys(ledger: Ledger): Promise<string[]> {
  const out: string[] = [];
  for await (const [k] of ledger.entries('venues')) out.push(k);
  return out;
}
