import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { Redis } from 'ioredis';
import { startLocalRedis } from '../../src/queue/redis-server.ts';
import { startServer, type RunningServer } from '../../src/serve/server.ts';
import { createLogger } from '../../src/util/log.ts';
import { testPrefix } from '../support/redis.ts';

/** `serve` as the CLI starts it, connected, then its Redis goes away (stopped, crashed). */
async function serveOnDeadRedis(): Promise<{ redis: Redis; server: RunningServer }> {
  const local = await startLocalRedis();
  const redis = new Redis(local.url, { maxRetriesPerRequest: null });
  redis.on('error', () => undefined);
  const server = await startServer({ redis, redisUrl: local.url, prefix: testPrefix(), port: 0, host: '127.0.0.1', feedsDir: mkdtempSync(path.join(tmpdir(), 'calsync-feeds-')), log: createLogger({ level: 'silent' }) });
  const up = await request(`${server.url}/healthz`);
  expect(up.statusCode).toBe(200); // every connection is open
  await up.body.dump();
  await local.stop();
  return { redis, server };
}

describe('regression: /healthz gave no answer at all while Redis was down (its PING waited in the offline queue for Redis to return)', () => {
  it('answers 503 "redis unreachable" within a few seconds', { timeout: 30_000 }, async () => {
    const { redis, server } = await serveOnDeadRedis();
    try {
      const t0 = Date.now();
      const res = await request(`${server.url}/healthz`, { headersTimeout: 20_000 });
      expect(res.statusCode).toBe(503);
      expect(await res.body.json()).toMatchObject({ status: 'redis unreachable', redis: false });
      expect(Date.now() - t0).toBeLessThan(5_000);
    } finally {
      redis.disconnect();
      await Promise.race([server.close(), new Promise((r) => setTimeout(r, 2000))]);
    }
  });
});
