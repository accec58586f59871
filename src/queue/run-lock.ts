import type { Redis } from 'ioredis';

/** Another run holds the lock: the job is retried later (with backoff) instead of writing alongside it. */
export class RunLockedError extends Error {
  readonly code = 'calsync:run-locked';
  constructor(what: string) {
    super(`another run of ${what} is in progress; this one is retried later`);
    this.name = 'RunLockedError';
  }
}

/**
 * One run at a time per source (or site pair), across all workers: a job delivered twice (stalled
 * on one worker, retried on another) must not write alongside itself. The lock is renewed while
 * the run lives and expires by itself if its worker dies.
 */
export async function withRunLock<T>(redis: Redis, key: string, token: string, what: string, fn: () => Promise<T>, ttlMs = 60_000): Promise<T> {
  if ((await redis.set(key, token, 'PX', ttlMs, 'NX')) !== 'OK') throw new RunLockedError(what);
  const renew = setInterval(() => void redis.pexpire(key, ttlMs).catch(() => undefined), Math.floor(ttlMs / 3));
  try {
    return await fn();
  } finally {
    clearInterval(renew);
    // Release only our own lock (compare-and-delete).
    await redis.eval("if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end", 1, key, token).catch(() => undefined);
  }
}
