import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportIcsJob } from '../../jobs/export-ics.ts';
import { parseConfig } from '../../src/config/load.ts';
import type { JobDeps } from '../../src/queue/job-definition.ts';
import { RedisRateLimiter } from '../../src/queue/rate-limiter.ts';
import { mapConcurrent } from '../../src/util/pool.ts';
import { testPrefix, testRedis } from '../support/redis.ts';
import { PASSWORD, USER, testSite } from '../support/site.ts';

/** Enough events for 12 list pages: without a limit they arrive within a fraction of a second. */
const EVENTS = 600;
const LIMIT = 5;

describe('export-ics job and the site request limit', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  let redis: Redis;
  beforeAll(async () => {
    env = await testSite();
    redis = testRedis();
    await mapConcurrent(Array.from({ length: EVENTS }, (_, i) => i), 8, (i) =>
      env.client.events.create({ title: `E${i}`, start_date: `2027-03-${String(1 + (i % 28)).padStart(2, '0')} 10:00:00`, end_date: `2027-03-${String(1 + (i % 28)).padStart(2, '0')} 11:00:00`, timezone: 'UTC' }, { lang: 'en' }),
    );
  });
  afterAll(async () => {
    await redis.quit();
    await env.close();
  });

  function run(perSecond: number | undefined) {
    process.env.LIMITER_TEST_PW = PASSWORD;
    const prefix = testPrefix();
    const config = parseConfig({
      sites: [{ name: 'sb', restRoot: env.sandbox.url, auth: { user: USER, passwordEnv: 'LIMITER_TEST_PW' }, ...(perSecond ? { requestsPerSecond: perSecond } : {}) }],
      exports: [{ name: 'feed', site: 'sb', from: '2027-01-01', to: '2027-12-31', outDir: mkdtempSync(path.join(tmpdir(), 'calsync-export-limit-')) }],
    });
    const requests: string[] = [];
    // The worker's own limiterFor (src/queue/worker.ts): a Redis limiter per configured site.
    const deps = {
      config,
      limiterFor: (key: string) => {
        const site = config.sites.find((s) => s.name === key);
        return site?.requestsPerSecond ? new RedisRateLimiter(redis, `${prefix}:ratelimit:${key}`, site.requestsPerSecond) : undefined;
      },
      onRequest: (site: string) => void requests.push(site),
    } as unknown as JobDeps;
    const job = { updateProgress: async () => undefined } as never;
    return { go: () => exportIcsJob.process(job, { export: 'feed' }, deps, new AbortController().signal) as Promise<{ files: { events: number }[] }>, requests };
  }

  it('regression: exports built their client without the limiter and read the site faster than its request limit', async () => {
    // Without a limit the same export reads its pages faster than LIMIT a second (what made the test necessary).
    env.sandbox.resetStats();
    const free = run(undefined);
    expect((await free.go()).files[0]!.events).toBe(EVENTS);
    expect(env.sandbox.peakRate(1000)).toBeGreaterThan(LIMIT);

    env.sandbox.resetStats();
    const limited = run(LIMIT);
    const res = await limited.go();
    expect(res.files[0]!.events).toBe(EVENTS);
    const stats = env.sandbox.stats();
    // The listing pages, and the preflight's one read of the REST index.
    expect(stats.total).toBe(Math.ceil(EVENTS / 50) + 1);
    expect(env.sandbox.peakRate(1000)).toBeLessThanOrEqual(LIMIT);
    // Its requests are counted in the worker's metrics under the site's name.
    expect(limited.requests).toEqual(Array.from({ length: stats.total }, () => 'sb'));
  });
});
