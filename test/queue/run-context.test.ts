import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Job } from 'bullmq';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importCsvChunkJob, importCsvJob } from '../../jobs/import-csv.ts';
import { parseConfig } from '../../src/config/load.ts';
import { bullConnection } from '../../src/queue/connection.ts';
import type { JobDeps } from '../../src/queue/job-definition.ts';
import { runContext } from '../../src/runs/context.ts';
import { createLogger } from '../../src/util/log.ts';
import { writeEventsCsv } from '../support/generate-csv.ts';
import { redisUrl, testPrefix, testRedis } from '../support/redis.ts';
import { PASSWORD, USER, testSite } from '../support/site.ts';

describe('one RunContext for every job kind', () => {
  let env: Awaited<ReturnType<typeof testSite>>;
  let redis: Redis;
  beforeAll(async () => {
    env = await testSite();
    redis = testRedis();
  });
  afterAll(async () => {
    await redis.quit();
    await env.close();
  });

  it('runContext hands a run everything its host offers', () => {
    const limiter = { acquire: async () => undefined };
    const seen: string[] = [];
    const host = { redis, prefix: 'p', log: createLogger({ level: 'silent' }), limiterFor: () => limiter, onRequest: (site: string) => void seen.push(site) };
    const ctx = runContext(host, { runId: 'r1', logFields: { jobId: '7' } });
    expect(ctx.redis).toBe(redis);
    expect(ctx.prefix).toBe('p');
    expect(ctx.runId).toBe('r1');
    expect(ctx.limiterFor?.('sb')).toBe(limiter);
    ctx.onRequest?.('sb', {} as never);
    expect(seen).toEqual(['sb']);
    expect(ctx.log?.bindings()).toMatchObject({ jobId: '7' });
  });

  it('regression: CSV chunk jobs sent their requests past the worker metrics (no onRequest in their context)', async () => {
    process.env.RUN_CTX_PW = PASSWORD;
    const prefix = testPrefix();
    const csv = path.join(mkdtempSync(path.join(tmpdir(), 'calsync-ctx-')), 'rows.csv');
    await writeEventsCsv(csv, { rows: 30, seed: 7 });
    const config = parseConfig({
      sites: [{ name: 'sb', restRoot: env.sandbox.url, auth: { user: USER, passwordEnv: 'RUN_CTX_PW' } }],
      sources: [{ name: 'rows', kind: 'csv', site: 'sb', url: csv, chunkSize: 50 }],
    });
    const requests: string[] = [];
    const deps = {
      config, redis, redisUrl: redisUrl(), prefix, log: createLogger({ level: 'silent' }),
      limiterFor: () => undefined,
      onRequest: (site: string) => void requests.push(site),
    } as unknown as JobDeps;
    const job = (id: string) => ({ id, timestamp: Date.now(), updateProgress: async () => undefined }) as unknown as Job;
    const queue = new Queue('import', { connection: bullConnection(redisUrl()), prefix });
    try {
      const plan = (await importCsvJob.process(job('plan'), { source: 'rows' }, deps)) as { runId: string; chunks: number };
      expect(plan.chunks).toBe(1);
      const before = requests.length;
      const result = await importCsvChunkJob.process(job('chunk'), { runId: plan.runId, payload: { source: 'rows' }, chunk: 0 }, deps);
      expect(result.report.counts.events.created).toBe(30);
      // Every request the chunk sent reached the worker's metrics, under the site's name.
      const sent = requests.slice(before);
      expect(sent.length).toBe(result.report.requests?.total);
      expect(sent.length).toBeGreaterThanOrEqual(30);
      expect(new Set(sent)).toEqual(new Set(['sb']));
    } finally {
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
    }
  });
});
