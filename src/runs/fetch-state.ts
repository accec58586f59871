import type { Redis } from 'ioredis';

/** Small JSON state per source (fetch validators, last processed time). Redis when there is one. */
export interface StateStore {
  get<T>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown): Promise<void>;
}

export class RedisState implements StateStore {
  readonly redis: Redis;
  readonly prefix: string;
  constructor(redis: Redis, prefix = 'calsync') {
    this.redis = redis;
    this.prefix = prefix;
  }
  async get<T>(key: string): Promise<T | undefined> {
    const raw = await this.redis.get(`${this.prefix}:state:${key}`);
    return raw ? (JSON.parse(raw) as T) : undefined;
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
  async set(key: string, value: unknown) {
    this.map.set(key, JSON.stringify(value));
  }
}
