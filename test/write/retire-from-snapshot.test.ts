import { afterEach, describe, expect, it } from 'vitest';
import type { EventDraft, Normalized } from '../../src/model/draft.ts';
import type { RunWindow } from '../../src/model/run-window.ts';
import { SiteWriter } from '../../src/write/writer.ts';
import { MemoryLedger, type Ledger, type LedgerEntry, type LedgerKind } from '../../src/write/ledger.ts';
import { ledgerSnapshot } from '../../src/write/ledger-snapshot.ts';
import { RunReport } from '../../src/report/report.ts';
import type { RetirePolicy } from '../../src/write/retire.ts';
import { testSite } from '../support/site.ts';

/**
 * An ICS import primes its writer from a snapshot of the ledger read while the feed was parsed;
 * retirement then works from that snapshot and the run's own writes instead of reading the whole
 * ledger again. Under the run lock (jobs/import-ics.ts) nothing else writes the source's ledger
 * meanwhile, so both must decide exactly alike, the mass-retire guard's total included; a run of the
 * same source outside the lock must not make it touch what the ledger no longer holds.
 */

type Env = Awaited<ReturnType<typeof testSite>>;

/** Counts full reads of the ledger (entries()), the one call retirement used to make. */
class CountingLedger extends MemoryLedger {
  scans = 0;
  override entries(kind: LedgerKind): AsyncIterable<[string, LedgerEntry]> {
    this.scans++;
    return super.entries(kind);
  }
}

/** Event `i` on June `1 + i % 28`, 2025 (UTC), or on `day` when given. */
function draft(i: number, over: Partial<EventDraft> & { day?: number } = {}): Normalized<EventDraft> {
  const { day, ...rest } = over;
  const d = `2025-06-${String(day ?? 1 + (i % 28)).padStart(2, '0')}`;
  return {
    ok: true,
    draft: {
      identity: `ev-${i}`, title: `Event ${i}`, timezone: 'UTC', all_day: false, start_date: `${d} 10:00:00`, end_date: `${d} 11:00:00`,
      categories: [], tags: [], organizers: [], cancelled: false, slug: `ev-${i}`, origin: { source: 'test' }, ...rest,
    },
  };
}

/** The first half of June: events 0–13 (and 28+) fall inside, 14–27 outside. */
const WINDOW: RunWindow = { from: new Date('2025-06-01T00:00:00Z'), to: new Date('2025-06-15T00:00:00Z'), rule: 'overlap' };

interface RunOptions {
  /** Prime from a snapshot of the ledger (as import-ics does), or read the ledger by slug (and retire by reading it again). */
  snapshot: boolean;
  policy?: RetirePolicy;
  maxShare?: number;
  force?: boolean;
  /** Runs after the snapshot was taken and before this run writes: another run of the same source. */
  meanwhile?: () => Promise<void>;
}

async function run(env: Env, ledger: Ledger, items: Normalized<EventDraft>[], o: RunOptions) {
  const report = new RunReport({ id: 'r', kind: 'import-ics', source: 'test', site: 's', language: 'en', dryRun: false });
  const w = new SiteWriter({ client: env.client, ledger, report, sourceKey: 'test', lang: 'en', concurrency: 4 });
  const snapshot = o.snapshot ? await ledgerSnapshot(ledger, 'events', 1000) : undefined;
  await o.meanwhile?.();
  await w.prime(items, snapshot);
  for (let i = 0; i < items.length; i += 7) await w.writeEvents(items.slice(i, i + 7));
  await w.retire({ policy: o.policy ?? 'trash', window: WINDOW, maxShare: o.maxShare, force: o.force });
  return report;
}

const retiredSlugs = (r: RunReport) => r.items.filter((x) => x.outcome === 'retired').map((x) => x.slug).sort();
const trashedTitles = (env: Env) => env.sandbox.dump().events.filter((e) => (e as { status: string }).status === 'trash').map((e) => (e as { title: string }).title).sort();

describe('retirement from the ledger snapshot a run primed with', () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of closers.splice(0)) await c();
  });

  async function seeded(): Promise<{ env: Env; ledger: CountingLedger }> {
    const env = await testSite();
    closers.push(() => env.close());
    const ledger = new CountingLedger();
    await run(env, ledger, Array.from({ length: 28 }, (_, i) => draft(i)), { snapshot: false, policy: 'keep' });
    return { env, ledger };
  }

  /**
   * The second feed: 0–2 gone (inside the window), 16–17 gone (outside), 5 moved out of the window
   * and 20 into it (updated this run), 6 cancelled, 28–31 new inside the window (created this run).
   */
  const second = (): Normalized<EventDraft>[] => [
    ...Array.from({ length: 28 }, (_, i) => i)
      .filter((i) => ![0, 1, 2, 16, 17].includes(i))
      .map((i) => (i === 5 ? draft(i, { day: 20 }) : i === 20 ? draft(i, { day: 3 }) : i === 6 ? draft(i, { cancelled: true }) : draft(i))),
    ...[28, 29, 30, 31].map((i) => draft(i, { day: 1 + (i % 14) })),
  ];

  for (const guard of [{ maxShare: 0.5, refused: false }, { maxShare: 0.1, refused: true }]) {
    it(`decides as a full read of the ledger would, without one (guard ${guard.maxShare}: ${guard.refused ? 'refused' : 'retired'})`, async () => {
      const results = [];
      for (const snapshot of [false, true]) {
        const { env, ledger } = await seeded();
        ledger.scans = 0;
        const report = await run(env, ledger, second(), { snapshot, maxShare: guard.maxShare });
        expect(report.counts.events).toMatchObject({ created: 4, updated: 2, failed: 0 });
        // The snapshot run reads the ledger once (the snapshot), the other once (retirement).
        expect(ledger.scans).toBe(1);
        results.push({ retire: report.retire, retired: retiredSlugs(report), trashed: trashedTitles(env), ledger: [...(await ledgerSnapshot(ledger, 'events', 1000))!.slugs()].sort() });
      }
      const [full, fromSnapshot] = results;
      expect(fromSnapshot).toEqual(full);
      // Covered when retiring: 0–4 and 7–13 (5 moved out, 6 cancelled: retired either way), 20 moved in
      // and 28–31 created by this run: 3 of 17 vanished. The guard's total counts the run's own writes.
      expect(full!.retire).toMatchObject({ candidates: 3, refused: guard.refused });
      if (guard.refused) {
        expect(full!.retire!.reason).toMatch(/refusing to retire 3 of 17 events/);
        expect(full!.retired).toEqual(['ev-6']);
      } else expect(full!.retired).toEqual(['ev-0', 'ev-1', 'ev-2', 'ev-6']);
    });
  }

  it('an unchanged re-import reads the ledger once and retires nothing', async () => {
    const { env, ledger } = await seeded();
    ledger.scans = 0;
    env.sandbox.resetStats();
    const report = await run(env, ledger, Array.from({ length: 28 }, (_, i) => draft(i)), { snapshot: true });
    expect(report.counts.events).toMatchObject({ unchanged: 28 });
    expect(report.retire).toMatchObject({ candidates: 0, retired: 0, refused: false });
    expect(ledger.scans).toBe(1);
    expect(env.sandbox.stats().writes).toBe(0);
  });

  it('a run of the same source outside the lock: entries it retired or replaced meanwhile are not retired again, nor by their old ids', async () => {
    const { env, ledger } = await seeded();
    const ids = await ledger.getMany('events', ['ev-3', 'ev-4']);
    // Another run retired ev-3 (its entry left the ledger; the record here stays on the site to show
    // it is not touched) and rewrote ev-4 as a new record.
    const replacement = await env.client.events.create({ title: 'Event 4 again', start_date: '2025-06-05 10:00:00', end_date: '2025-06-05 11:00:00', timezone: 'UTC', status: 'publish' }, { lang: 'en' });
    const meanwhile = async () => {
      await ledger.remove('events', 'ev-3');
      await ledger.set('events', 'ev-4', { ...ids.get('ev-4')!, id: replacement.id });
    };
    const feed = Array.from({ length: 28 }, (_, i) => draft(i)).filter((it) => it.ok && !['ev-3', 'ev-4', 'ev-5'].includes(it.draft.slug!));
    const report = await run(env, ledger, feed, { snapshot: true, force: true, meanwhile });
    expect(retiredSlugs(report)).toEqual(['ev-4', 'ev-5']);
    expect(report.items.find((x) => x.slug === 'ev-4' && x.outcome === 'retired')?.siteId).toBe(replacement.id);
    expect(trashedTitles(env)).toEqual(['Event 4 again', 'Event 5']);
    expect(report.retire).toMatchObject({ candidates: 2, retired: 2, failed: 0 });
  });

  it('a run of the same source outside the lock: an entry it added after the snapshot is left for the next run', async () => {
    const { env, ledger } = await seeded();
    const other = await env.client.events.create({ title: 'Other run', start_date: '2025-06-02 10:00:00', end_date: '2025-06-02 11:00:00', timezone: 'UTC', status: 'publish' }, { lang: 'en' });
    const entry: LedgerEntry = { fp: 'x', id: other.id, start: '2025-06-02T10:00:00Z', end: '2025-06-02T11:00:00Z', at: new Date().toISOString() };
    const items = Array.from({ length: 28 }, (_, i) => draft(i));
    const report = await run(env, ledger, items, { snapshot: true, meanwhile: () => ledger.set('events', 'other-run', entry) });
    expect(report.retire).toMatchObject({ candidates: 0, retired: 0 });
    expect(trashedTitles(env)).toEqual([]);
    // The next run (whose snapshot holds it) retires it.
    const next = await run(env, ledger, items, { snapshot: true });
    expect(retiredSlugs(next)).toEqual(['other-run']);
  });
});
