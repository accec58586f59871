import { beforeEach, describe, expect, it } from 'vitest';
import type { EventDraft, Normalized } from '../../src/model/draft.ts';
import { SiteWriter } from '../../src/write/writer.ts';
import { MemoryLedger, type Ledger } from '../../src/write/ledger.ts';
import { ledgerSnapshot } from '../../src/write/ledger-snapshot.ts';
import { jobMark } from '../../src/write/job-mark.ts';
import { RunReport, type ReportJson } from '../../src/report/report.ts';
import { DraftKeys, draftKey } from '../../src/write/draft-keys.ts';
import { testSite } from '../support/site.ts';
import { eventItem as draft } from '../support/drafts.ts';

type Env = Awaited<ReturnType<typeof testSite>>;

function keysOf(items: Normalized<EventDraft>[]): DraftKeys {
  const keys = new DraftKeys('test', 'publish');
  for (const it of items) if (it.ok) keys.set(it.draft, draftKey(it.draft, 'test', 'publish'));
  return keys;
}

/** One delivery of a job marked `mark` (none: an inline run): a fresh writer over the same ledger, as a takeover starts. */
async function deliver(env: Env, ledger: Ledger, items: Normalized<EventDraft>[], mark: string | undefined, withKeys: boolean): Promise<ReportJson> {
  const report = new RunReport({ id: 'r', kind: 'import-ics', source: 'test', site: 's', language: 'en', dryRun: false });
  const w = new SiteWriter({ client: env.client, ledger, report, sourceKey: 'test', lang: 'en', concurrency: 4, ...(mark ? { mark } : {}), ...(withKeys ? { keys: keysOf(items) } : {}) });
  await w.prime(items, await ledgerSnapshot(ledger, 'events', 1000));
  for (let i = 0; i < items.length; i += 10) await w.writeEvents(items.slice(i, i + 10));
  return report.toJSON();
}

const outcomes = (r: ReportJson, kind: 'events' | 'venues' | 'organizers') => r.items.filter((i) => i.kind === kind).map((i) => `${i.outcome}${i.earlier ? ' (earlier)' : ''}`);

describe('jobMark', () => {
  it('is the same for every delivery of a job and differs between jobs, and between ids used again', () => {
    const job = { queueName: 'import', id: '7', timestamp: 1_790_000_000_000 };
    expect(jobMark({ ...job })).toBe(jobMark(job));
    expect(jobMark(job)).toHaveLength(10);
    expect(jobMark({ ...job, id: '8' })).not.toBe(jobMark(job));
    expect(jobMark({ ...job, queueName: 'sync' })).not.toBe(jobMark(job));
    expect(jobMark({ ...job, timestamp: job.timestamp + 1 })).not.toBe(jobMark(job));
  });
});

describe.each([
  ['bodies built and hashed here', false],
  ['draft keys from the parser thread', true],
])('a job run again reports its earlier delivery\'s writes, %s', (_, withKeys) => {
  let env: Env;
  beforeEach(async () => {
    env = await testSite();
    return () => env.close();
  });

  it('the same job: created as before (events, venues, organizers), without a write; another job or an inline run: unchanged', async () => {
    const ledger = new MemoryLedger();
    const items = Array.from({ length: 20 }, (_, i) => draft(i));
    const first = await deliver(env, ledger, items, 'job-a', withKeys);
    expect(first.counts.events).toMatchObject({ created: 20, unchanged: 0 });
    expect(first.counts.venues).toMatchObject({ created: 2 });
    env.sandbox.resetStats();

    // The same job again (a takeover): what the first delivery did, flagged as its, and nothing written.
    const again = await deliver(env, ledger, items, 'job-a', withKeys);
    expect(again.counts.events).toMatchObject({ read: 20, created: 20, unchanged: 0, updated: 0 });
    expect(new Set(outcomes(again, 'events'))).toEqual(new Set(['created (earlier)']));
    expect(outcomes(again, 'venues')).toEqual(['created (earlier)', 'created (earlier)']);
    expect(outcomes(again, 'organizers')).toEqual(['created (earlier)']);
    expect(env.sandbox.stats().writes).toBe(0);

    // Another job, or an inline run without a mark: unchanged.
    for (const mark of ['job-b', undefined]) {
      const later = await deliver(env, ledger, items, mark, withKeys);
      expect(later.counts.events).toMatchObject({ created: 0, unchanged: 20 });
      expect(later.counts.venues).toMatchObject({ created: 0, unchanged: 2 });
      expect(later.items.some((i) => i.earlier)).toBe(false);
    }
  });

  it('an event its job created and changed before the takeover wrote it again: still created by the run', async () => {
    const ledger = new MemoryLedger();
    const items = Array.from({ length: 5 }, (_, i) => draft(i));
    await deliver(env, ledger, items, 'job-a', withKeys);
    const changed = items.map((it, i) => (i === 0 && it.ok ? draft(0, { title: 'Renamed' }) : it));
    const again = await deliver(env, ledger, changed, 'job-a', withKeys);
    expect(again.counts.events).toMatchObject({ created: 5, updated: 0, unchanged: 0 });
    // Its entry still says the job created it: a third delivery says so too.
    const third = await deliver(env, ledger, changed, 'job-a', withKeys);
    expect(third.counts.events).toMatchObject({ created: 5, updated: 0, unchanged: 0 });
    // A later job finds it unchanged.
    expect((await deliver(env, ledger, changed, 'job-b', withKeys)).counts.events).toMatchObject({ unchanged: 5 });
  });

  it('an event another run created and the job updated is reported updated by every delivery of the job', async () => {
    const ledger = new MemoryLedger();
    const items = Array.from({ length: 5 }, (_, i) => draft(i));
    await deliver(env, ledger, items, undefined, withKeys);
    const changed = items.map((it, i) => (i === 0 && it.ok ? draft(0, { title: 'Renamed' }) : it));
    const first = await deliver(env, ledger, changed, 'job-a', withKeys);
    expect(first.counts.events).toMatchObject({ updated: 1, unchanged: 4 });
    const again = await deliver(env, ledger, changed, 'job-a', withKeys);
    expect(again.counts.events).toMatchObject({ created: 0, updated: 1, unchanged: 4 });
  });
});
