import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, NetworkError, TimeoutError, type CalendarClient } from '../../src/api/index.ts';
import { NO_FAULTS, WINDOW, caught, eventBody, isReal, openTarget, type Target } from './harness.ts';

/**
 * Fault injection needs the sandbox's knobs and counters, so this file is skipped against a
 * real site. Every scenario checks the outcome the site sees, not only the client's view.
 */
async function all<T>(n: number, concurrency: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await fn(i);
      }
    }),
  );
  return out;
}

describe.skipIf(isReal)('faults (sandbox only)', () => {
  let t: Target;
  let c: CalendarClient;
  beforeAll(async () => {
    t = await openTarget({ seed: 42 });
    c = t.client({ retry: { maxRetries: 8, minDelayMs: 10, maxDelayMs: 200 } });
  });
  afterAll(() => t.close());
  // A failed scenario must not leave its faults on for the next one.
  afterEach(() => t.sandbox?.setFaults(NO_FAULTS));

  it('429 with Retry-After: concurrent updates wait as told, never early, and all succeed', async () => {
    const sb = t.sandbox!;
    const slugs = Array.from({ length: 12 }, (_, i) => `${t.prefix}-thr-${i}`);
    await all(12, 4, (i) => c.events.upsertBySlug(slugs[i]!, eventBody(`${t.prefix} thr ${i}`, 1 + i)));
    sb.setFaults({ throttleRate: 0.3, retryAfterSeconds: 1 });
    sb.resetStats();
    const before = c.stats();
    const results = await all(12, 4, (i) => c.events.upsertBySlug(slugs[i]!, eventBody(`${t.prefix} thr ${i} v2`, 1 + i)));
    sb.setFaults(NO_FAULTS);
    expect(results.every((r) => !r.created && r.record.title.endsWith('v2'))).toBe(true);
    const after = c.stats();
    expect(after.throttled - before.throttled).toBeGreaterThan(0);
    expect(after.retries - before.retries).toBe(after.throttled - before.throttled);
    expect(sb.stats().faults.throttle).toBe(after.throttled - before.throttled);
    expect(sb.stats().retryAfterViolations).toBe(0);
  });

  it('429 with Retry-After on creates: repeated after the wait, each event created once', async () => {
    const sb = t.sandbox!;
    sb.setFaults({ throttleRate: 0.3, retryAfterSeconds: 1 });
    sb.resetStats();
    // One at a time: the sandbox keys Retry-After by method + path, so concurrent first attempts
    // at the shared `POST /events` would be counted against the client (see the report).
    const results = await all(6, 1, (i) => c.events.upsertBySlug(`${t.prefix}-thc-${i}`, eventBody(`${t.prefix}thc ${i}`, 1 + i)));
    sb.setFaults(NO_FAULTS);
    expect(results.every((r) => r.created)).toBe(true);
    expect(sb.stats().faults.throttle).toBeGreaterThan(0);
    expect(sb.stats().retryAfterViolations).toBe(0);
    expect(sb.stats().byRoute['POST /events']! - sb.stats().faults.throttle).toBeLessThanOrEqual(6);
    const listed: string[] = [];
    for await (const e of c.events.iterate({ ...WINDOW, search: `${t.prefix}thc` })) listed.push(e.slug);
    expect(listed.sort()).toEqual(Array.from({ length: 6 }, (_, i) => `${t.prefix}-thc-${i}`).sort());
  });

  it('a throttled site holds back every call of the client until Retry-After has passed', async () => {
    const sb = t.sandbox!;
    sb.setFaults({ throttleRate: 1, retryAfterSeconds: 1 });
    const gated = t.client({ retry: { maxRetries: 3, minDelayMs: 5, maxDelayMs: 10 } });
    const first = gated.events.list({ ...WINDOW, per_page: 1 });
    await new Promise((r) => setTimeout(r, 100));
    sb.setFaults(NO_FAULTS);
    const started = Date.now();
    // Sent while the first call waits out its Retry-After: must not leave before it expires.
    await gated.events.list({ ...WINDOW, per_page: 2 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(800);
    await first;
    expect(gated.stats().throttled).toBe(1);
  });

  it('5xx errors and dropped connections: every upsert lands exactly once', async () => {
    const sb = t.sandbox!;
    const n = 24;
    sb.resetStats();
    sb.setFaults({ errorRate: 0.2, dropRate: 0.2 });
    const before = c.stats();
    const results = await all(n, 6, (i) => c.events.upsertBySlug(`${t.prefix}-flt-${i}`, eventBody(`${t.prefix}flt ${i}`, 1 + (i % 28))));
    const { faults } = sb.stats();
    sb.setFaults(NO_FAULTS);
    expect(faults.error).toBeGreaterThan(0);
    expect(faults.drop).toBeGreaterThan(0);
    expect(c.stats().retries).toBeGreaterThan(before.retries);
    expect(results.map((r) => r.record.slug)).toEqual(Array.from({ length: n }, (_, i) => `${t.prefix}-flt-${i}`));
    const listed: string[] = [];
    for await (const e of c.events.iterate({ ...WINDOW, search: `${t.prefix}flt` })) listed.push(e.slug);
    expect(listed).toHaveLength(n);
    expect(new Set(listed).size).toBe(n);
  });

  it('faulty creates of venues, organizers and terms leave no duplicates', async () => {
    const sb = t.sandbox!;
    sb.setFaults({ errorRate: 0.25, dropRate: 0.25 });
    await all(6, 3, (i) => c.venues.upsertBySlug(`${t.prefix}fv-${i}`, { venue: `${t.prefix}fv ${i}`, city: `C${i}` }));
    await all(6, 3, (i) => c.organizers.upsertBySlug(`${t.prefix}fo-${i}`, { organizer: `${t.prefix}fo ${i}` }));
    await all(6, 3, (i) => c.categories.create({ name: `${t.prefix}fc ${i}`, slug: `${t.prefix}-fc-${i}` }));
    await all(6, 3, (i) => c.tags.create({ name: `${t.prefix}ft ${i}` }));
    sb.setFaults(NO_FAULTS);
    const count = async (it: AsyncIterable<unknown>) => {
      let k = 0;
      for await (const _ of it) k++;
      return k;
    };
    expect(await count(c.venues.iterate({ search: `${t.prefix}fv` }))).toBe(6);
    expect(await count(c.organizers.iterate({ search: `${t.prefix}fo` }))).toBe(6);
    expect(await count(c.categories.iterate({ search: `${t.prefix}fc`, hide_empty: false }))).toBe(6);
    expect(await count(c.tags.iterate({ search: `${t.prefix}ft`, hide_empty: false }))).toBe(6);
  });

  it('a create without a slug is never repeated once it may have landed', async () => {
    const sb = t.sandbox!;
    sb.setFaults({ errorRate: 1 });
    sb.resetStats();
    const err = await caught(() => c.events.create(eventBody(`${t.prefix} noslug`)));
    sb.setFaults(NO_FAULTS);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBeGreaterThanOrEqual(500);
    expect((err as ApiError).attempts).toBe(1);
    expect(sb.stats().byRoute['POST /events']).toBe(1);
  });

  it('retries are bounded: a site that keeps failing gives up after maxRetries', async () => {
    const sb = t.sandbox!;
    const few = t.client({ retry: { maxRetries: 2, minDelayMs: 5, maxDelayMs: 20 } });
    sb.setFaults({ errorRate: 1 });
    sb.resetStats();
    const err = await caught(() => few.events.list({ ...WINDOW }));
    sb.setFaults(NO_FAULTS);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).attempts).toBe(3);
    expect(few.stats()).toMatchObject({ requests: 3, retries: 2 });
  });

  it('dropped connections on reads are NetworkErrors once retries run out', async () => {
    const sb = t.sandbox!;
    const few = t.client({ retry: { maxRetries: 1, minDelayMs: 5, maxDelayMs: 20 } });
    sb.setFaults({ dropRate: 1 });
    const err = await caught(() => few.events.list({ ...WINDOW }));
    sb.setFaults(NO_FAULTS);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).attempts).toBe(2);
    expect((err as NetworkError).route).toBe('/events');
  });

  it('a slow site hits the headers timeout per attempt and the total deadline per call', async () => {
    const sb = t.sandbox!;
    // undici's headers/body timers tick every ~0.5 s, so the latency is well above that.
    sb.setFaults({ latencyMs: 1500 });
    const perAttempt = t.client({ timeouts: { headersMs: 100 }, retry: { maxRetries: 1, minDelayMs: 5, maxDelayMs: 10 } });
    const e1 = await caught(() => perAttempt.events.list({ ...WINDOW }));
    expect(e1).toBeInstanceOf(TimeoutError);
    expect((e1 as TimeoutError).kind).toBe('headers');
    expect((e1 as TimeoutError).attempts).toBe(2);
    const total = t.client({ timeouts: { totalMs: 250 } });
    const started = Date.now();
    const e2 = await caught(() => total.events.list({ ...WINDOW }));
    expect(e2).toBeInstanceOf(TimeoutError);
    expect((e2 as TimeoutError).kind).toBe('total');
    expect(Date.now() - started).toBeLessThan(1200);
    sb.setFaults(NO_FAULTS);
  });

  it('an aborted signal stops the call with the caller’s reason', async () => {
    const sb = t.sandbox!;
    sb.setFaults({ latencyMs: 500 });
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error('caller gave up')), 50);
    const err = await caught(() => c.events.list({ ...WINDOW }, { signal: ac.signal }));
    sb.setFaults(NO_FAULTS);
    expect((err as Error).message).toBe('caller gave up');
  });
});
