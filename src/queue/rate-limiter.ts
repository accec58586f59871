import type { Redis } from 'ioredis';

// Sliding one-second log in a sorted set, timed by Redis' own clock so every worker on every
// machine agrees. Returns 0 when a slot was taken, else the milliseconds to wait.
const SCRIPT = `
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local member = ARGV[3]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
if redis.call('ZCARD', key) < limit then
  redis.call('ZADD', key, now, member)
  redis.call('PEXPIRE', key, window * 2)
  return 0
end
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
return math.max(1, tonumber(oldest[2]) + window - now)
`;

let seq = 0;

/**
 * A per-site request limit shared by all workers through Redis: four workers on four machines
 * still send at most `perSecond` requests a second to one site.
 */
export class RedisRateLimiter {
  readonly redis: Redis;
  readonly key: string;
  readonly perSecond: number;
  constructor(redis: Redis, key: string, perSecond: number) {
    this.redis = redis;
    this.key = key;
    this.perSecond = perSecond;
  }
  async acquire(signal?: AbortSignal): Promise<void> {
    const member = `${process.pid}-${Date.now()}-${seq++}-${Math.random()}`;
    for (let i = 0; i < 10_000; i++) {
      signal?.throwIfAborted();
      // Below 1 request/s the window widens instead (0.5/s = 1 per 2000 ms).
      const limit = Math.max(1, Math.floor(this.perSecond));
      const window = this.perSecond >= 1 ? 1000 : Math.ceil(1000 / this.perSecond);
      const wait = Number(await this.redis.eval(SCRIPT, 1, this.key, String(limit), String(window), member));
      if (wait === 0) return;
      await new Promise((r) => setTimeout(r, Math.min(wait, 1000)));
    }
    throw new Error(`rate limiter ${this.key}: no slot after 10000 tries`);
  }
}
