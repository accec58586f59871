import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import type { Redis } from 'ioredis';
import { Queue } from 'bullmq';
import { startServer, type RunningServer } from '../../src/serve/server.ts';
import { bullConnection } from '../../src/queue/connection.ts';
import { createLogger } from '../../src/util/log.ts';
import { redisUrl, testPrefix, testRedis } from '../support/redis.ts';

/** Issue 14 part 1, replayed against `calsync serve`: the dashboard must not hand the worker to strangers. */

const ADD = '/admin/queues/api/queues/import/add';
const job = JSON.stringify({ name: 'import-ics', data: { source: 'x' }, options: {} });

describe('the dashboard trusts only the password holder (issue 14 part 1)', () => {
  let redis: Redis;
  let feeds: string;
  let queue: Queue;
  let prefix: string;
  const log = createLogger({ level: 'silent' });
  beforeAll(() => {
    redis = testRedis();
    feeds = mkdtempSync(path.join(tmpdir(), 'calsync-feeds-'));
  });
  afterAll(async () => {
    await redis.quit();
  });
  const open = async (extra: { basicAuth?: { user: string; password: string }; publicUrl?: string; host?: string } = {}): Promise<RunningServer> => {
    prefix = testPrefix();
    queue = new Queue('import', { connection: bullConnection(redisUrl()), prefix });
    return startServer({ redis, redisUrl: redisUrl(), prefix, port: 0, host: extra.host ?? '127.0.0.1', feedsDir: feeds, log, ...extra });
  };
  const close = async (s: RunningServer) => {
    await s.close();
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
  };

  it('regression: an unauthenticated POST to the dashboard added a job (200); without basic auth the dashboard is read-only', async () => {
    const s = await open();
    try {
      const add = await request(`${s.url}${ADD}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: job });
      await add.body.dump();
      expect(add.statusCode).toBe(403);
      for (const action of ['pause', 'resume', 'clean/completed']) {
        const r = await request(`${s.url}/admin/queues/api/queues/import/${action}`, { method: 'PUT' });
        await r.body.dump();
        expect(r.statusCode).toBe(403);
      }
      expect(await queue.count()).toBe(0);
      expect(await queue.isPaused()).toBe(false);
      // Viewing still works.
      const view = await request(`${s.url}/admin/queues/api/queues?activeQueue=import&page=1&jobsPerPage=10`);
      expect(view.statusCode).toBe(200);
      expect((await view.body.json()) as object).toHaveProperty('queues');
    } finally {
      await close(s);
    }
  });

  it('with basic auth, only the password holder manages jobs, and never from another origin', async () => {
    const s = await open({ basicAuth: { user: 'ops', password: 'pw-123' } });
    const auth = `Basic ${Buffer.from('ops:pw-123').toString('base64')}`;
    try {
      const anon = await request(`${s.url}${ADD}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: job });
      await anon.body.dump();
      expect(anon.statusCode).toBe(401);
      const csrf = await request(`${s.url}${ADD}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: auth, origin: 'http://evil.example' }, body: job });
      await csrf.body.dump();
      expect(csrf.statusCode).toBe(403);
      expect(await queue.count()).toBe(0);
      const ok = await request(`${s.url}${ADD}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: auth, origin: s.url }, body: job });
      await ok.body.dump();
      expect(ok.statusCode).toBe(200);
      expect(await queue.count()).toBe(1);
    } finally {
      await close(s);
    }
  });

  it('regression: serve answered any Host header; a DNS-rebinding name gets 421, loopback and the public URL are served', async () => {
    const s = await open({ publicUrl: 'https://cal.example.org' });
    try {
      const status = async (host: string) => {
        const r = await request(`${s.url}/healthz`, { headers: { host } });
        await r.body.dump();
        return r.statusCode;
      };
      expect(await status('attacker.example:8788')).toBe(421);
      expect(await status('localhost.attacker.example')).toBe(421);
      expect(await status(`127.0.0.1:${s.port}`)).toBe(200);
      expect(await status(`localhost:${s.port}`)).toBe(200);
      expect(await status('cal.example.org')).toBe(200);
    } finally {
      await close(s);
    }
  });

  it('regression: serve listened on 0.0.0.0 with no basic auth; a non-loopback bind without a password is refused', async () => {
    prefix = testPrefix();
    await expect(startServer({ redis, redisUrl: redisUrl(), prefix, port: 0, host: '0.0.0.0', feedsDir: feeds, log })).rejects.toMatchObject({ code: 'serve-unsafe-bind' });
    const s = await startServer({ redis, redisUrl: redisUrl(), prefix, port: 0, host: '0.0.0.0', feedsDir: feeds, log, basicAuth: { user: 'ops', password: 'pw-123' } });
    await s.close();
  });
});
