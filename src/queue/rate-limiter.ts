import type { Redis } from 'ioredis';

// Hands out evenly spaced send slots (a virtual schedule, GCRA-style): each call reserves the next
// free slot and learns how long to wait for it, so a waiting request costs one round trip instead
// of polling, and workers never wake as a herd when a window opens. Timed by Redis' own clock so
// every worker on every machine agrees. Returns the whole milliseconds until the slot.
const SCRIPT = `
local key = KEYS[1]
local interval = tonumber(ARGV[1])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local slot = math.max(now, tonumber(redis.call('GET', key) or '0'))
redis.call('SET', key, string.format('%.3f', slot + interval), 'PX', math.ceil(slot + interval - now) + 1000)
return math.ceil(slot - now)
`;

/**
 * A request reaches the site some time after its slot: the Redis reply, a timer firing late on a
 * busy event loop, the connection, the site's own queue. Those delays differ from request to
 * request, so requests given slots a second apart can land within one second at the site.
 * Spreading each second's slots over 1000 + MARGIN_MS keeps every second at the site within the
 * limit while that spread stays under MARGIN_MS, at the price of using 1000 / (1000 + MARGIN_MS)
 * (83%) of the limit. Measured with 4 worker processes and the site on one busy 2-CPU machine
 * (test/queue/multi-worker.test.ts), the spread reached ~130 ms; 100 ms let seconds through
 * with a few requests too many.
 */
export const MARGIN_MS = 200;
/**
 * The part of the spread a worker sees, its own lateness (Redis reply plus timer), is held under
 * this: a slot that late is given back unused and a fresh one taken. The rest of MARGIN_MS is for
 * what happens after the request leaves.
 */
export const LATE_MS = 50;
/** Late slots in a row after which a process too starved to keep time goes anyway. */
const MAX_LATE = 5;

/**
 * A per-site request limit shared by all workers through Redis: four workers on four machines
 * still send at most `perSecond` requests in any one second to one site.
 */
export class RedisRateLimiter {
  readonly redis: Redis;
  readonly key: string;
  readonly perSecond: number;
  /** milliseconds between two slots; no bursts, so no second holds more than perSecond of them */
  readonly intervalMs: number;
  constructor(redis: Redis, key: string, perSecond: number, marginMs = MARGIN_MS) {
    this.redis = redis;
    this.key = key;
    this.perSecond = perSecond;
    this.intervalMs = (1000 + marginMs) / perSecond;
  }
  async acquire(signal?: AbortSignal): Promise<void> {
    for (let late = 0; ; late++) {
      signal?.throwIfAborted();
      const asked = performance.now();
      // `:next` holds the next free slot; `key` itself was the sorted set of the earlier sliding-log
      // limiter, which a worker not yet upgraded may still be using.
      const wait = Number(await this.redis.eval(SCRIPT, 1, `${this.key}:next`, String(this.intervalMs)));
      // Cancelled while waiting: the slot stays unused, which only errs on the safe side.
      if (wait > 0) await sleep(wait, signal);
      // Sent now, a late slot would crowd the next second at the site together with its own.
      if (performance.now() - asked - wait <= LATE_MS || late >= MAX_LATE) return;
    }
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
