import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, QueueEvents } from 'bullmq';
import { bullConnection } from '../../src/queue/connection.ts';
import { waitForRun } from '../../src/queue/follow.ts';
import { runCli } from '../support/cli.ts';
import { redisUrl, testPrefix } from '../support/redis.ts';

/**
 * Found running calsync as a service: `calsync enqueue … --wait` never ended when its job vanished
 * from Redis (Redis restarted without its data mid-run: the worker logged "Missing key for job", the
 * wait went on looking at a job in no list), and `enqueue` with a REDIS_URL nobody answered logged
 * "Redis unreachable … retrying" and never ended, while `calsync runs` failed with ioredis' "Reached
 * the max retries per request limit", naming neither Redis nor its URL.
 */
describe('regression: enqueue waited forever on a lost job or an unreachable Redis', () => {
  const prefix = testPrefix();
  let queue: Queue;
  let events: QueueEvents;
  beforeAll(async () => {
    queue = new Queue('import', { connection: bullConnection(redisUrl()), prefix });
    events = new QueueEvents('import', { connection: bullConnection(redisUrl()), prefix });
    await events.waitUntilReady();
  });
  afterAll(async () => {
    await events.close();
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
  });

  it('a wait on a job that leaves Redis ends with what happened, instead of waiting forever', { timeout: 30_000 }, async () => {
    // No worker: the job waits; then it is gone, as after a Redis restart without its data.
    const job = await queue.add('import-ics', { source: 'talks' });
    const waiting = waitForRun(job, queue, events);
    waiting.catch(() => undefined);
    await job.remove();
    await expect(waiting).rejects.toThrow(/is no longer in Redis \(was Redis restarted without its data, or the job removed\?\)/);
  });

  it('enqueue and runs with a REDIS_URL nobody answers exit 1 within seconds, naming the URL', async () => {
    for (const args of [['enqueue', 'import-ics', '--name', 'talks'], ['runs']]) {
      const r = await runCli(args, { REDIS_URL: 'redis://127.0.0.1:9/0', CALSYNC_CONFIG: '' }, 30_000);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toMatch(/^calsync: Redis at redis:\/\/127\.0\.0\.1:9\/0 does not answer \(.+\): start it, or set --redis \/ REDIS_URL to the Redis the worker uses$/m);
      expect(r.ms).toBeLessThan(20_000);
    }
  });
});
