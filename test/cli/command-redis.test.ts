import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.ts';
import { RedisUnavailableError } from '../../src/queue/redis-server.ts';
import { commandRedis, type GlobalOptions } from '../../src/cli/runtime.ts';
import { redisUrl } from '../support/redis.ts';

/**
 * The one Redis opener of the CLI commands (src/cli/runtime.ts): what differed between the
 * inline runs' opener and `runs`/`resume`'s (required or not, the message without a Redis,
 * retries per request) is in its options.
 */
describe('commandRedis: one opener for every CLI command', () => {
  const g: GlobalOptions = { prefix: 'calsync' };
  const saved = { url: process.env.REDIS_URL, bin: process.env.REDIS_SERVER_BIN };
  const config = () => parseConfig({ dataDir: mkdtempSync(path.join(tmpdir(), 'calsync-command-redis-')) });
  const warnings: string[] = [];
  const log = { warn: (m: string) => void warnings.push(m), info: () => undefined } as never;

  beforeEach(() => {
    // No Redis anywhere: no URL and no redis-server to start.
    delete process.env.REDIS_URL;
    process.env.REDIS_SERVER_BIN = path.join(tmpdir(), 'calsync-no-such-redis-server');
    warnings.length = 0;
  });
  afterEach(() => {
    for (const [k, v] of [['REDIS_URL', saved.url], ['REDIS_SERVER_BIN', saved.bin]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  it("need 'none' opens nothing", async () => {
    const r = await commandRedis({ ...g, redis: redisUrl() }, config(), { need: 'none' });
    expect(r).toMatchObject({ embedded: false });
    expect(r.redis).toBeUndefined();
  });

  it("need 'optional' without a Redis: no connection, and a warning that the ledger is in memory", async () => {
    const r = await commandRedis(g, config(), { log });
    expect(r.redis).toBeUndefined();
    expect(warnings).toEqual([expect.stringMatching(/^no Redis available: the ledger is kept in memory for this run only/)]);
    await r.stop();
  });

  it("need 'required' without a Redis: the embedded server's reason, or the command's own", async () => {
    await expect(commandRedis(g, config(), { need: 'required' })).rejects.toThrow(/No Redis server: .* was not found/);
    const err = await commandRedis(g, config(), { need: 'required', unavailable: 'no Redis for the history' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedisUnavailableError);
    expect((err as Error).message).toMatch(/^no Redis for the history\n/);
  });

  it('a URL (--redis, $REDIS_URL or the config) is used as it is, with the retries asked for', async () => {
    const r = await commandRedis({ ...g, redis: redisUrl() }, config(), { need: 'required', maxRetriesPerRequest: 2 });
    try {
      expect(r).toMatchObject({ url: redisUrl(), embedded: false });
      expect(r.redis.options.maxRetriesPerRequest).toBe(2);
      expect(await r.redis.ping()).toBe('PONG');
    } finally {
      await r.stop();
    }
    process.env.REDIS_URL = redisUrl();
    const fromEnv = await commandRedis(g, config(), { log });
    expect(fromEnv.redis?.options.maxRetriesPerRequest).toBeNull();
    await fromEnv.stop();
  });

  it("no URL: the data dir's embedded server, released on stop", async () => {
    if (saved.bin === undefined) delete process.env.REDIS_SERVER_BIN;
    else process.env.REDIS_SERVER_BIN = saved.bin;
    const r = await commandRedis(g, config(), { need: 'required', log });
    try {
      expect(r.embedded).toBe(true);
      expect(r.url).toMatch(/^redis:\/\//);
      expect(await r.redis.ping()).toBe('PONG');
    } finally {
      await r.stop();
    }
  });
});
