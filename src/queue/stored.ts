import type { Redis } from 'ioredis';
import type { z } from 'zod';
import { CalsyncError } from '../errors/calsync-error.ts';

/** Parts of a planned run kept in Redis (CSV chunks, sync pages and plans) live this long. */
export const STORED_TTL_S = 7 * 24 * 3600;

/**
 * A part of a planned run that Redis no longer holds (expired, deleted) or that is not what the
 * planner stored (corrupted, or written by something else under our key). Retrying cannot bring
 * it back, so the job fails at once (both codes are unrecoverable: src/errors/codes.ts); the
 * message says what to do.
 */
export class StoredStateError extends CalsyncError {
  override name = 'StoredStateError';
  readonly code: 'run-state-missing' | 'run-state-invalid';
  readonly key: string;
  constructor(code: StoredStateError['code'], key: string, message: string) {
    super(message);
    this.code = code;
    this.key = key;
  }
}

export async function writeStored(redis: Redis, key: string, value: unknown, ttlS = STORED_TTL_S): Promise<void> {
  await redis.set(key, JSON.stringify(value), 'EX', ttlS);
}

/**
 * Reads back a stored part, checked by its schema (Redis is outside the process: nothing read
 * from it is trusted). `what` names the part for the message, e.g. `page 3 (en) of sync run …`.
 * Missing: `undefined`; unreadable or not matching the schema: StoredStateError.
 */
export async function readStoredIfAny<S extends z.ZodType>(redis: Redis, key: string, schema: S, what: string): Promise<z.infer<S> | undefined> {
  const raw = await redis.get(key);
  if (raw === null) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new StoredStateError('run-state-invalid', key, `${what} in Redis is not JSON (corrupted or written by something else); enqueue the run again`);
  }
  const r = schema.safeParse(json);
  if (!r.success) {
    const where = r.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(value)'}: ${i.message}`).join('; ');
    throw new StoredStateError('run-state-invalid', key, `${what} in Redis is not what the planner stored (${where}); enqueue the run again`);
  }
  return r.data;
}

/** As readStoredIfAny, and a missing part is a StoredStateError too. */
export async function readStored<S extends z.ZodType>(redis: Redis, key: string, schema: S, what: string): Promise<z.infer<S>> {
  const value = await readStoredIfAny(redis, key, schema, what);
  if (value === undefined) throw new StoredStateError('run-state-missing', key, `${what} is no longer in Redis (expired or deleted); enqueue the run again`);
  return value;
}
