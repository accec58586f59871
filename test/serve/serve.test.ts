import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import type { Redis } from 'ioredis';
import { startServer, type RunningServer } from '../../src/serve/server.ts';
import { MetricsRecorder, METRIC_KEYS } from '../../src/metrics/recorder.ts';
import { createLogger } from '../../src/util/log.ts';
import { redisUrl, testPrefix, testRedis } from '../support/redis.ts';
import { JOBS } from '../../jobs/index.ts';
import { parseConfig } from '../../src/config/load.ts';
import { startWorkers } from '../../src/queue/worker.ts';

describe('calsync serve', () => {
  let server: RunningServer;
  let redis: Redis;
  let prefix: string;
  beforeAll(async () => {
    redis = testRedis();
    prefix = testPrefix();
    const dir = mkdtempSync(path.join(tmpdir(), 'calsync-feeds-'));
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'city.en.ics'), 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\nEND:VCALENDAR\r\n');
    server = await startServer({ redis, redisUrl: redisUrl(), prefix, port: 0, host: '127.0.0.1', feedsDir: dir, log: createLogger({ level: 'silent' }), basicAuth: { user: 'ops', password: 's3cret' } });
  });
  afterAll(async () => {
    await server.close();
    await redis.quit();
  });

  it('exposes Prometheus metrics that move as workers record them', async () => {
    const text = async () => (await request(`${server.url}/metrics`)).body.text();
    const before = await text();
    expect(before).toContain('calsync_queue_jobs{queue="import",state="waiting"} 0');
    const rec = new MetricsRecorder(redis, prefix);
    rec.inc(METRIC_KEYS.jobs, { kind: 'import-ics', outcome: 'completed' });
    rec.inc(METRIC_KEYS.items, { run: 'import-ics', kind: 'events', outcome: 'created' }, 7);
    rec.observe(METRIC_KEYS.jobSeconds, { kind: 'import-ics' }, 0.4);
    // Workers send what they counted together (at most a second later, and as they shut down).
    await rec.flush();
    const after = await text();
    expect(after).toContain('calsync_jobs_total{kind="import-ics",outcome="completed"} 1');
    expect(after).toContain('calsync_items_total{kind="events",outcome="created",run="import-ics"} 7');
    expect(after).toMatch(/calsync_job_duration_seconds_bucket\{kind="import-ics",le="0.5"\} 1/);
    expect(after).toContain('# TYPE calsync_job_duration_seconds histogram');
    await request(`${server.url}/feeds/city/en.ics`).then((r) => r.body.dump());
    expect(await text()).toMatch(/calsync_feed_requests_total\{feed="city",lang="en",status="200"\} 1/);
  });

  it('answers /healthz with Redis reachable, and the worker processes connected', async () => {
    const res = await request(`${server.url}/healthz`);
    expect(res.statusCode).toBe(200);
    expect(await res.body.json()).toMatchObject({ status: 'ok', redis: true, workers: 0 });
    // Regression: it counted BullMQ workers, one per queue a process serves (4 or 5 per process).
    const running = await startWorkers({ config: parseConfig({}), redisUrl: redisUrl(), jobs: JOBS, log: createLogger({ level: 'silent' }), prefix });
    try {
      expect(await (await request(`${server.url}/healthz`)).body.json()).toMatchObject({ status: 'ok', workers: 1 });
    } finally {
      await running.close(5000);
    }
  });

  it('puts the Bull Board dashboard behind Basic auth', async () => {
    const anon = await request(`${server.url}/admin/queues`);
    await anon.body.dump();
    expect(anon.statusCode).toBe(401);
    const auth = `Basic ${Buffer.from('ops:s3cret').toString('base64')}`;
    const ok = await request(`${server.url}/admin/queues`, { headers: { authorization: auth } });
    expect(ok.statusCode).toBe(200);
    expect(await ok.body.text()).toMatch(/bull|board|queues/i);
    const api = await request(`${server.url}/admin/queues/api/queues`, { headers: { authorization: auth } });
    const body = (await api.body.json()) as { queues: { name: string }[] };
    expect(body.queues.map((q) => q.name).sort()).toEqual(['export', 'import', 'sync', 'sync-plan']);
  });

  it('serves feeds and a 404 for unknown paths', async () => {
    const feed = await request(`${server.url}/feeds/city/en.ics`);
    expect(feed.statusCode).toBe(200);
    expect(feed.headers['content-type']).toMatch(/text\/calendar/);
    await feed.body.dump();
    const missing = await request(`${server.url}/feeds/nope/en.ics`);
    expect(missing.statusCode).toBe(404);
    await missing.body.dump();
  });
});
