import type { Redis } from 'ioredis';
import { CalsyncError } from '../errors/calsync-error.ts';

/** Another run holds the lock: the job is retried later (with backoff) instead of writing alongside it. */
export class RunLockedError extends CalsyncError {
  readonly code = 'run-locked';
  /** The lock is held by an earlier delivery of this same run (a worker that died or stalled under it). */
  readonly sameRun: boolean;
  constructor(what: string, sameRun = false) {
    super(`another run of ${what} is in progress; this one is retried later`);
    this.name = 'RunLockedError';
    this.sameRun = sameRun;
  }
}

/** The lock is not ours: who holds it decides whether this job waits (its own earlier delivery) or not. */
async function lockedError(redis: Redis, key: string, token: string, what: string): Promise<RunLockedError> {
  const holder = await redis.get(key).catch(() => null);
  return new RunLockedError(what, holder === null || holder === token);
}

const RENEW = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end";
const RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";

/**
 * Takes the lock for `token`, or keeps it when `token` already holds it: a job retried after its
 * worker died is the same run and must be let back in.
 */
export async function acquireRunLock(redis: Redis, key: string, token: string, what: string, ttlMs: number): Promise<void> {
  if ((await redis.set(key, token, 'PX', ttlMs, 'NX')) === 'OK') return;
  if (Number(await redis.eval(RENEW, 1, key, token, String(ttlMs))) === 1) return;
  throw await lockedError(redis, key, token, what);
}

/** Extends the lock while `token` holds it (a no-op once another run has it). */
export async function renewRunLock(redis: Redis, key: string, token: string, ttlMs: number): Promise<boolean> {
  return Number(await redis.eval(RENEW, 1, key, token, String(ttlMs))) === 1;
}

/** Releases only our own lock (compare-and-delete). */
export async function releaseRunLock(redis: Redis, key: string, token: string): Promise<void> {
  await redis.eval(RELEASE, 1, key, token).catch(() => undefined);
}

/** Renews the lock every third of its TTL until the returned function is called. */
export function keepRunLock(redis: Redis, key: string, token: string, ttlMs: number): () => void {
  const timer = setInterval(() => void renewRunLock(redis, key, token, ttlMs).catch(() => undefined), Math.floor(ttlMs / 3));
  return () => clearInterval(timer);
}

/**
 * One run at a time per source (or site pair), across all workers: a job delivered twice (stalled
 * on one worker, retried on another) must not write alongside itself. The lock is renewed while
 * the run lives and expires by itself if its worker dies.
 */
export async function withRunLock<T>(redis: Redis, key: string, token: string, what: string, fn: () => Promise<T>, ttlMs: number): Promise<T> {
  if ((await redis.set(key, token, 'PX', ttlMs, 'NX')) !== 'OK') throw await lockedError(redis, key, token, what);
  const stop = keepRunLock(redis, key, token, ttlMs);
  try {
    return await fn();
  } finally {
    stop();
    await releaseRunLock(redis, key, token);
  }
}

/**
 * Runs `fn` for a piece of a run that spans jobs (a CSV chunk, a sync page), renewing the run's lock
 * while it works. The lock was taken by the run's first job and is released by its last; a piece
 * whose run lost the lock keeps going (its writes are idempotent).
 */
export async function underRunLock<T>(redis: Redis, key: string, token: string, ttlMs: number, fn: () => Promise<T>): Promise<T> {
  await renewRunLock(redis, key, token, ttlMs);
  const stop = keepRunLock(redis, key, token, ttlMs);
  try {
    return await fn();
  } finally {
    stop();
  }
}
