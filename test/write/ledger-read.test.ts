import { afterAll, describe, expect, it } from 'vitest';
import { LedgerEntry, MemoryLedger, RedisLedger, type Ledger } from '../../src/write/ledger.ts';
import { ledgerSnapshot } from '../../src/write/ledger-snapshot.ts';
import { testPrefix, testRedis } from '../support/redis.ts';

/**
 * Stored entries are read back through a compiled copy of the LedgerEntry schema first
 * (src/write/ledger.ts parseEntry): whatever it is given, what comes back must be the schema's own
 * verdict and output, by every way of reading (getMany, entries, ledgerSnapshot).
 */
const redis = testRedis();
afterAll(() => redis.quit());

const stored: Record<string, unknown> = {
  full: { fp: 'f', id: 1, modified: 'm', start: 's', end: 'e', localStart: 'ls', localEnd: 'le', slug: 'sl', src: 'sr', srcMod: 'sm', links: 'l', adopted: true, at: 'a' },
  minimal: { fp: 'f', id: 2, at: 'a' },
  extraKeys: { fp: 'f', id: 3, at: 'a', future: { x: 1 }, other: 'kept?' },
  undefinedLike: { fp: 'f', id: 4, at: 'a', modified: null },
  wrongType: { fp: 'f', id: '5', at: 'a' },
  missing: { fp: 'f', at: 'a' },
  notObject: [1, 2],
  nothing: null,
};

describe('ledger entries read back', () => {
  it('getMany, entries and ledgerSnapshot give what LedgerEntry.safeParse gives for each stored value', async () => {
    const ledger = new RedisLedger(redis, { site: 's', language: 'en', source: 'read' }, testPrefix());
    const key = `${ledger.prefix}:ledger:s:en:read:events`;
    await redis.hset(key, Object.fromEntries(Object.entries(stored).map(([k, v]) => [k, JSON.stringify(v)])));
    const expected = new Map(Object.entries(stored).flatMap(([k, v]) => {
      const r = LedgerEntry.safeParse(v);
      return r.success ? [[k, r.data] as const] : [];
    }));
    expect([...expected.keys()].sort()).toEqual(['extraKeys', 'full', 'minimal']);
    expect(expected.get('extraKeys')).toEqual({ fp: 'f', id: 3, at: 'a' });
    const byGet = await ledger.getMany('events', Object.keys(stored));
    const byScan = new Map<string, LedgerEntry>();
    for await (const [slug, e] of ledger.entries('events')) byScan.set(slug, e);
    const snapshot = await ledgerSnapshot(ledger, 'events', 100);
    for (const got of [byGet, byScan, new Map(snapshot!.entries())]) {
      expect(new Map([...got].sort(([a], [b]) => (a < b ? -1 : 1)))).toEqual(new Map([...expected].sort(([a], [b]) => (a < b ? -1 : 1))));
    }
    // A stored value that is not an entry is held (as HKEYS and HLEN count it) but never read as one.
    expect(snapshot!.size).toBe(Object.keys(stored).length);
    expect([snapshot!.holds('notObject'), snapshot!.has('notObject'), snapshot!.get('notObject')]).toEqual([true, false, undefined]);
    expect([snapshot!.holds('full'), snapshot!.has('full')]).toEqual([true, true]);
  });

  it('ledgerSnapshot reads a ledger of several HSCAN pages whole, as entries() does', async () => {
    const ledger = new RedisLedger(redis, { site: 's', language: 'en', source: 'pages' }, testPrefix());
    const key = `${ledger.prefix}:ledger:s:en:pages:events`;
    const slugs = Array.from({ length: 2500 }, (_, i) => `ev-${i}`);
    await redis.hset(key, Object.fromEntries(slugs.map((s, i) => [s, JSON.stringify({ fp: `fp-${i}`, id: i, at: 'a' })])));
    const byScan = new Map<string, LedgerEntry>();
    for await (const [slug, e] of ledger.entries('events')) byScan.set(slug, e);
    const snapshot = await ledgerSnapshot(ledger, 'events', 10_000);
    expect(snapshot!.size).toBe(2500);
    expect(new Map(snapshot!.entries())).toEqual(byScan);
    expect(snapshot!.get('ev-1234')).toEqual({ fp: 'fp-1234', id: 1234, at: 'a' });
    expect(await ledgerSnapshot(ledger, 'events', 2499)).toBeUndefined();
  });
});

describe('retirements recorded by remove()', () => {
  const entry = { fp: 'f', id: 1, at: 'a' };
  const cases: [string, () => Ledger][] = [
    ['RedisLedger', () => new RedisLedger(redis, { site: 's', language: 'en', source: 'retired' }, testPrefix())],
    ['MemoryLedger', () => new MemoryLedger()],
  ];
  it.each(cases)('%s: kept beside the entries (the entry gone), read all or by slug, forgotten by slug', async (_name, make) => {
    const ledger = make();
    for (const slug of ['a', 'b', 'c', 'd']) await ledger.set('events', slug, { ...entry, id: slug.charCodeAt(0) });
    const a = { run: 'job-1', id: 97, reason: 'no longer in the source; moved to trash', at: '2026-11-01T00:00:00.000Z' };
    const b = { id: 98, reason: 'cancelled in the source; moved to trash', at: '2026-11-02T00:00:00.000Z' };
    await ledger.remove('events', 'a', a);
    await ledger.remove('events', 'b', b);
    await ledger.remove('events', 'c');
    expect([...(await ledger.getMany('events', ['a', 'b', 'c', 'd'])).keys()]).toEqual(['d']);
    expect(await ledger.retirements('events')).toEqual(new Map([['a', a], ['b', b]]));
    expect(await ledger.retirements('events', ['b', 'c', 'x'])).toEqual(new Map([['b', b]]));
    expect((await ledger.retirements('venues')).size).toBe(0);
    await ledger.forgetRetirements('events', ['a', 'x']);
    expect([...(await ledger.retirements('events')).keys()]).toEqual(['b']);
  });

  it('a stored record that is not one is left out', async () => {
    const ledger = new RedisLedger(redis, { site: 's', language: 'en', source: 'retired-bad' }, testPrefix());
    const key = `${ledger.prefix}:ledger:s:en:retired-bad:events:retired`;
    await redis.hset(key, { ok: JSON.stringify({ run: 'j', id: 1, reason: 'r', at: 'a' }), text: 'not json', wrong: JSON.stringify({ run: 'j', id: '1', reason: 'r', at: 'a' }) });
    expect([...(await ledger.retirements('events')).keys()]).toEqual(['ok']);
    expect([...(await ledger.retirements('events', ['ok', 'text', 'wrong'])).keys()]).toEqual(['ok']);
  });
});
