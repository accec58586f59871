import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Redis } from 'ioredis';
import { CalendarClient } from '../../src/api/index.ts';
import { RunReport } from '../../src/report/report.ts';
import { RunFailedError } from '../../src/runs/context.ts';
import { EarlyPlan } from '../../src/runs/import-ics-early.ts';
import { runIcsImport, type IcsImportParams } from '../../src/runs/import-ics.ts';
import { ImageGuard } from '../../src/sources/fetch/image-guard.ts';
import { gatedLedger, WriteGate } from '../../src/write/gate.ts';
import { MemoryLedger, type Ledger } from '../../src/write/ledger.ts';
import { ledgerSnapshot } from '../../src/write/ledger-snapshot.ts';
import { SiteWriter } from '../../src/write/writer.ts';
import { testPrefix, testRedis } from '../support/redis.ts';
import { feedServer, testSite } from '../support/site.ts';
import { eventItem as draft, hall } from '../support/drafts.ts';

/**
 * An ICS import plans the first parts of its feed while the parser thread still reads the rest
 * (src/runs/import-ics-early.ts). The feed can still be refused after that: too many occurrences,
 * the time or memory limit, a parse error, the changed-UIDs guard. Such a feed must leave what it
 * left before early planning existed: no site write, no ledger change, no report item.
 */

type Env = Awaited<ReturnType<typeof testSite>>;


/** Every ledger entry of every kind, as a comparable value. */
async function ledgerState(ledger: Ledger): Promise<unknown> {
  const out: Record<string, unknown> = {};
  for (const kind of ['events', 'venues', 'organizers'] as const) out[kind] = [...((await ledgerSnapshot(ledger, kind, 10_000))?.entries() ?? [])].sort();
  out.names = await ledger.recordedNames('venues', ['north-hall', 'south-hall', 'west-hall']);
  return out;
}

/** A gate that counts the writes that came to wait at it. */
class CountingGate extends WriteGate {
  waits = 0;
  override wait(): Promise<void> {
    this.waits++;
    return super.wait();
  }
}

describe('regression: a feed refused after parts of it were planned leaves nothing written', () => {
  let env: Env;
  beforeEach(async () => {
    env = await testSite();
    return () => env.close();
  });

  /** A first import of 30 events, then an early planner over a changed feed whose writes wait at the gate. */
  async function planned() {
    const ledger = new MemoryLedger();
    const first = new RunReport({ id: 'r1', kind: 'import-ics', source: 'test', site: 's', language: 'en', dryRun: false });
    const w1 = new SiteWriter({ client: env.client, ledger, report: first, sourceKey: 'test', lang: 'en', concurrency: 8 });
    const items = Array.from({ length: 30 }, (_, i) => draft(i));
    await w1.prime(items, undefined);
    await w1.writeEvents(items);
    expect(first.counts.events.created).toBe(30);
    const before = await ledgerState(ledger);
    env.sandbox.resetStats();

    // A changed title, a new venue (a venue create and a name spelling) and a new category (a term create).
    const changed = items.slice();
    changed[3] = draft(3, { title: 'Renamed' });
    changed[7] = draft(7, { venue: hall('West Hall') });
    changed[9] = draft(9, { categories: [{ name: 'Theatre' }] });
    const gate = new CountingGate();
    const client = new CalendarClient({ ...env.site.connection, language: 'en', gate });
    const report = new RunReport({ id: 'r2', kind: 'import-ics', source: 'test', site: 's', language: 'en', dryRun: false });
    report.hold();
    const writer = new SiteWriter({ client, ledger: gatedLedger(ledger, gate), report, sourceKey: 'test', lang: 'en', concurrency: 8 });
    const early = new EarlyPlan(writer, ledgerSnapshot(ledger, 'events', 10_000), new ImageGuard(), 10);
    early.add(changed.slice(0, 15));
    early.add(changed.slice(15));
    // The first part is planned: its changes now wait at the gate.
    await vi.waitFor(() => expect(gate.waits).toBeGreaterThan(0));
    return { ledger, before, gate, client, report, early };
  }

  it('refused: the held writes fail at the gate, the ledger and the site are untouched, the report holds nothing', async () => {
    const { ledger, before, gate, client, report, early } = await planned();
    gate.refuse(new Error('refused late'));
    await early.finish().catch(() => undefined);
    report.discard();
    await new Promise((r) => setTimeout(r, 50));
    expect(env.sandbox.stats().writes).toBe(0);
    expect(await ledgerState(ledger)).toEqual(before);
    const json = report.finish();
    expect(json.items).toEqual([]);
    expect(json.counts.events.read + json.counts.venues.read + json.counts.categories.read).toBe(0);
    await client.close();
  });

  it('accepted: the same held writes go out once the gate opens, and the part planned early is reported', async () => {
    const { ledger, before, gate, client, report, early } = await planned();
    gate.open();
    report.release();
    // Planning stops after the part in progress; the rest takes the usual way (import-ics.ts).
    expect(await early.finish()).toBe(10);
    expect(report.counts.events).toMatchObject({ read: 10, updated: 3, unchanged: 7, failed: 0 });
    expect(report.counts.venues.created).toBe(1);
    expect(report.counts.categories.created).toBe(1);
    expect(env.sandbox.stats().writes).toBeGreaterThanOrEqual(4);
    expect(await ledgerState(ledger)).not.toEqual(before);
    await client.close();
  });
});

function vevent(uid: string, summary: string, start: string, extra: string[] = []): string {
  return ['BEGIN:VEVENT', `UID:${uid}`, 'DTSTAMP:20250101T000000Z', `DTSTART:${start}`, 'DURATION:PT1H', `SUMMARY:${summary}`, ...extra, 'END:VEVENT'].join('\r\n');
}
function calendar(events: string[]): string {
  return ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//calsync tests//EN', ...events, 'END:VCALENDAR', ''].join('\r\n');
}
/** 2,100 single events (more than one early part), then daily series: `count` occurrences each. */
function feed(count: number, renamed = ''): string {
  const singles = Array.from({ length: 2100 }, (_, i) => {
    const day = String(1 + (i % 28)).padStart(2, '0');
    const month = String(1 + (Math.floor(i / 28) % 12)).padStart(2, '0');
    return vevent(`s${i}@test`, i % 500 === 3 ? `Single ${i}${renamed}` : `Single ${i}`, `2025${month}${day}T${String(8 + (i % 10)).padStart(2, '0')}0000Z`, [`LOCATION:Hall ${i % 7}${i === 5 ? renamed : ''}`, 'CATEGORIES:Music']);
  });
  const series = Array.from({ length: 5 }, (_, i) => vevent(`d${i}@test`, `Daily ${i}`, `2025010${i + 1}T120000Z`, [`RRULE:FREQ=DAILY;COUNT=${count}`]));
  return calendar([...singles, ...series]);
}

describe('regression: an ICS re-import refused late (occurrence limit) writes nothing', () => {
  let env: Env;
  let server: Awaited<ReturnType<typeof feedServer>>;
  let redis: Redis;
  let prefix: string;
  beforeAll(async () => {
    redis = testRedis();
    server = await feedServer(feed(20));
  });
  afterAll(async () => {
    await server.close();
    await redis.quit();
  });
  beforeEach(async () => {
    env = await testSite();
    prefix = testPrefix();
    return () => env.close();
  });
  const params = (over: Partial<IcsImportParams> = {}): IcsImportParams => ({
    location: server.url, site: env.site, sourceKey: 'late', lang: 'en', window: { from: new Date('2025-01-01T00:00:00Z'), to: new Date('2026-01-01T00:00:00Z') },
    retire: 'trash', onEdit: 'overwrite', defaultTimezone: 'UTC', status: 'publish', createTerms: true, categoriesAs: 'categories', dryRun: false,
    allow: [new URL(server.url).host], refreshAfterMs: 0, maxOccurrencesPerFile: 2300, ...over,
  });
  /** Every value this test's prefix holds in Redis but the fetch state (which a failed run marks, as before). */
  async function stored(): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    for (const key of (await redis.keys(`${prefix}*`)).sort()) {
      if (key.includes(':fetch:') || key.includes('state')) continue;
      const type = await redis.type(key);
      out[key] = type === 'hash' ? await redis.hgetall(key) : type === 'string' ? await redis.get(key) : type;
    }
    return out;
  }

  it('a changed feed over the occurrence limit after 2,100 unchanged and changed events fails with its code, with no write, no ledger change and no item', async () => {
    const first = await runIcsImport(params(), { redis, prefix });
    expect(first.counts.events.created).toBe(2200);
    const before = await stored();
    env.sandbox.resetStats();
    // Renamed events and a new venue among the first parts; the series at the end now exceed the limit.
    server.set(feed(60, ' (changed)'));
    const err = await runIcsImport(params(), { redis, prefix }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunFailedError);
    expect((err as RunFailedError).code).toBe('ics-too-many-occurrences');
    expect(env.sandbox.stats().writes).toBe(0);
    expect(await stored()).toEqual(before);
    expect((err as RunFailedError).report?.items).toEqual([]);
    // The same changed feed within the limit is written: the changes were real.
    const ok = await runIcsImport(params({ maxOccurrencesPerFile: 5000 }), { redis, prefix });
    expect(ok.counts.events.updated).toBeGreaterThanOrEqual(5);
    expect(env.sandbox.stats().writes).toBeGreaterThan(0);
  });
});
