import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { Redis } from 'ioredis';
import { freePort } from '../../src/queue/redis-server.ts';
import { startServer } from '../../src/serve/server.ts';
import { createLogger } from '../../src/util/log.ts';
import { testPrefix } from '../support/redis.ts';

describe('regression: /healthz gave no answer at all while Redis was down (the PING waited in the offline queue for Redis to return)', () => {
  it('answers 503 "redis unreachable" within a few seconds', { timeout: 30_000 }, async () => {
    // A Redis that is gone: nothing listens on its port. `serve` connects as the CLI does.
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}`;
    const redis = new Redis(url, { maxRetriesPerRequest: null });
    redis.on('error', () => undefined);
    const server = await startServer({ redis, redisUrl: url, prefix: testPrefix(), port: 0, host: '127.0.0.1', feedsDir: mkdtempSync(path.join(tmpdir(), 'calsync-feeds-')), log: createLogger({ level: 'silent' }) });
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
