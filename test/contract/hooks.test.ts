import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestInfo } from '../../src/api/index.ts';
import { NO_FAULTS, WINDOW, eventBody, isReal, openTarget, type Target } from './harness.ts';

describe('limiter, metrics hook, stats', () => {
  let t: Target;
  beforeAll(async () => {
    t = await openTarget();
  });
  afterAll(() => t.close());

  it('the limiter is awaited before every attempt and the hook sees every attempt', async () => {
    let acquired = 0;
    const infos: RequestInfo[] = [];
    const c = t.client({
      limiter: { acquire: async () => void acquired++ },
      onRequest: (info) => infos.push(info),
    });
    const { record } = await c.events.upsertBySlug(`${t.prefix}-hook`, eventBody(`${t.prefix} hook`, 2));
    t.track('events', record.id);
    await c.events.list({ ...WINDOW, search: `${t.prefix} hook` });
    const stats = c.stats();
    expect(stats.requests).toBe(3);
    expect(acquired).toBe(stats.requests);
    expect(infos.map((i) => `${i.method} ${i.route} ${i.status}`)).toEqual([
      'POST /events/by-slug/:slug ' + (infos[0]!.status),
      'POST /events 201',
      'GET /events 200',
    ]);
    expect(infos.every((i) => i.attempt === 1 && i.durationMs >= 0)).toBe(true);
    expect(JSON.stringify(infos)).not.toContain(t.password || '\u0000');
  });

  it('a hook that throws does not break calls', async () => {
    const c = t.client({
      onRequest: () => {
        throw new Error('metrics down');
      },
    });
    expect((await c.events.list({ ...WINDOW, per_page: 1 })).page).toBe(1);
  });

  it.skipIf(isReal)('the limiter is also awaited before retries', async () => {
    let acquired = 0;
    const c = t.client({ limiter: { acquire: async () => void acquired++ }, retry: { maxRetries: 8, minDelayMs: 5, maxDelayMs: 20 } });
    t.sandbox!.setFaults({ errorRate: 0.5 });
    for (let i = 0; i < 6; i++) await c.events.list({ ...WINDOW, per_page: 1 });
    t.sandbox!.setFaults(NO_FAULTS);
    expect(c.stats().retries).toBeGreaterThan(0);
    expect(acquired).toBe(c.stats().requests);
  });

  it('a limiter that holds calls back is respected (simple token spacing)', async () => {
    let last = 0;
    let calls = 0;
    const c = t.client({
      limiter: {
        acquire: async () => {
          calls++;
          const now = Date.now();
          const wait = Math.max(0, last + 30 - now);
          last = now + wait;
          await new Promise((r) => setTimeout(r, wait));
        },
      },
    });
    const started = Date.now();
    await Promise.all([0, 1, 2, 3].map(() => c.events.list({ ...WINDOW, per_page: 1 })));
    expect(calls).toBe(4);
    // Four tokens 30 ms apart: the last request cannot have left before ~90 ms.
    expect(Date.now() - started).toBeGreaterThanOrEqual(85);
  });
});
