import { afterAll, describe, expect, it } from 'vitest';
import { testRedis } from './redis.ts';
import { startLocalRedis, RedisUnavailableError } from '../../src/queue/redis-server.ts';

describe('redis harness', () => {
  const redis = testRedis();
  afterAll(() => redis.quit());
  it('reaches the run-wide redis-server', async () => {
    expect(await redis.ping()).toBe('PONG');
  });
  it('names the fix when no redis-server binary exists', async () => {
    const err = await startLocalRedis({ binary: '/nonexistent/redis-server' }).catch((e) => e);
    expect(err).toBeInstanceOf(RedisUnavailableError);
    expect(String(err.message)).toMatch(/apt-get install redis-server/);
  });
});
