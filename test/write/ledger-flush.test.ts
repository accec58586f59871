import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { RedisLedger, type LedgerEntry } from '../../src/write/ledger.ts';
import { testPrefix, testRedis } from '../support/redis.ts';

/**
 * RedisLedger.set groups entries into one pipeline of HSETs per window (src/write/ledger.ts): every
 * flush is a socket write in calsync and a command in Redis, on the same cores as the site.
 */

const redis = testRedis();
afterAll(() => redis.quit());
afterEach(() => vi.useRealTimers());

const entry = (id: number): LedgerEntry => ({ fp: `fp-${id}`, id, at: '2025-01-01T00:00:00.000Z' });

/** A ledger whose flushes are counted (each one is one `pipeline()`). */
function counted() {
  const ledger = new RedisLedger(redis, { site: 's', language: 'en', source: 'flush' }, testPrefix());
  const pipeline = vi.spyOn(redis, 'pipeline');
  pipeline.mockClear();
  return { ledger, flushes: () => pipeline.mock.calls.length };
}

describe('ledger writes are grouped', () => {
  it('regression: each ledger flush carried a MULTI for a few events (one every 2 ms); concurrent entries now share one pipeline, and each is stored once its set resolves', async () => {
    const { ledger, flushes } = counted();
    const slugs = Array.from({ length: 100 }, (_, i) => `ev-${i}`);
    await Promise.all(slugs.map((s, i) => ledger.set('events', s, entry(i))));
    expect(flushes()).toBe(1);
    const stored = await ledger.getMany('events', slugs);
    expect(stored.size).toBe(100);
    expect(stored.get('ev-42')?.id).toBe(42);
  });

  it('a full window is flushed without waiting for its timer: 600 entries, three flushes', async () => {
    const { ledger, flushes } = counted();
    const slugs = Array.from({ length: 600 }, (_, i) => `big-${i}`);
    await Promise.all(slugs.map((s, i) => ledger.set('events', s, entry(i))));
    expect(flushes()).toBe(3);
    expect((await ledger.getMany('events', slugs)).size).toBe(600);
  });

  it('a venue or organizer entry (awaited by events holding write slots) is stored at once, with the events pending beside it', async () => {
    const { ledger, flushes } = counted();
    // With the window's timer stopped, only an immediate flush can store anything.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const event = ledger.set('events', 'ev-with-venue', entry(1));
    await ledger.set('venues', 'hall', entry(2));
    await event;
    expect(flushes()).toBe(1);
    expect((await ledger.getMany('events', ['ev-with-venue'])).get('ev-with-venue')?.id).toBe(1);
    expect((await ledger.getMany('venues', ['hall'])).get('hall')?.id).toBe(2);
  });

  it('an event entry alone waits for the window: stored when its timer fires', async () => {
    const { ledger, flushes } = counted();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let stored = false;
    const pending = ledger.set('events', 'later', entry(3)).then(() => (stored = true));
    await Promise.resolve();
    expect(stored).toBe(false);
    expect(flushes()).toBe(0);
    await vi.advanceTimersByTimeAsync(50);
    await pending;
    expect(flushes()).toBe(1);
    expect((await ledger.getMany('events', ['later'])).get('later')?.id).toBe(3);
  });
});
