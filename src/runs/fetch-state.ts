import type { Redis } from 'ioredis';

/** Small JSON state per source (fetch validators, last processed time). Redis when there is one. */
export interface StateStore {
  get<T>(key: string): Promise<T | undefined>;
  /** The stored JSON text, not yet parsed (a caller that reads it early and parses it later). */
  text(key: string): Promise<string | undefined>;
  set(key: string, value: unknown): Promise<void>;
}

/** Stored JSON text, parsed (undefined: none, or not JSON). */
export function parsedState(text: string | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export class RedisState implements StateStore {
  readonly redis: Redis;
  readonly prefix: string;
  constructor(redis: Redis, prefix = 'calsync') {
    this.redis = redis;
    this.prefix = prefix;
  }
  async get<T>(key: string): Promise<T | undefined> {
    const raw = await this.text(key);
    return raw ? (JSON.parse(raw) as T) : undefined;
  }
  async text(key: string): Promise<string | undefined> {
    return (await this.redis.get(`${this.prefix}:state:${key}`)) ?? undefined;
  }
  async set(key: string, value: unknown): Promise<void> {
    await this.redis.set(`${this.prefix}:state:${key}`, JSON.stringify(value));
  }
}

export class MemoryState implements StateStore {
  private readonly map = new Map<string, string>();
  async get<T>(key: string) {
    const raw = this.map.get(key);
    return raw ? (JSON.parse(raw) as T) : undefined;
  }
  async text(key: string) {
    return this.map.get(key);
  }
  async set(key: string, value: unknown) {
    this.map.set(key, JSON.stringify(value));
  }
}
