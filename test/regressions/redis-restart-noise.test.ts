import { mkdtempSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startLocalRedis } from '../../src/queue/redis-server.ts';
import { spawnWorker, waitFor, writeConfig } from '../support/worker-process.ts';
import { testPrefix } from '../support/redis.ts';

/**
 * Found running calsync as a service: a 5 s Redis restart put four multi-line
 * `Error: connect ECONNREFUSED … at TCPConnectWrap…` stacks into `enqueue --wait`'s output (its
 * BullMQ queues and queue events had no error listener) and 13 plain-text "[ioredis] Unhandled error
 * event" lines into the worker's JSON log (its own connection had none). Each now logs the outage
 * once, as one line.
 */

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

describe('regression: a Redis restart printed stack traces into enqueue --wait and the worker log', () => {
  it('each says "Redis unreachable" once, with no stack and no unhandled error event', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'calsync-redis-restart-'));
    let redis = await startLocalRedis({ dataDir: path.join(dir, 'redis') });
    const { port, password } = redis;
    const prefix = testPrefix();
    const config = writeConfig({ sites: [{ name: 'sb', restRoot: 'http://127.0.0.1:9/wp-json' }], exports: [{ name: 'feed', site: 'sb', outDir: dir }] });
    const worker = spawnWorker({ config, redisUrl: redis.url, prefix, args: ['--queues', 'import'] });
    // No worker serves the export queue: the job waits, and so does enqueue --wait.
    const enqueue = spawn(process.execPath, [CLI, '--config', config, '--redis', redis.url, '--prefix', prefix, 'enqueue', 'export-ics', '--name', 'feed', '--wait'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let waitOut = '';
    enqueue.stdout.on('data', (d) => (waitOut += d));
    enqueue.stderr.on('data', (d) => (waitOut += d));
    try {
      await waitFor('the job enqueued', async () => /enqueued export-ics job/.test(waitOut), 20_000);
      await waitFor('the worker started', async () => /worker started/.test(worker.output()), 20_000);
      await redis.stop();
      await new Promise((r) => setTimeout(r, 3000));
      redis = await startLocalRedis({ dataDir: path.join(dir, 'redis'), port, password });
      await waitFor('the worker back', async () => /Redis reachable again/.test(worker.output()), 20_000);
      await new Promise((r) => setTimeout(r, 1000));
    } finally {
      enqueue.kill('SIGKILL');
      await worker.kill('SIGKILL');
      await redis.stop();
    }
    for (const [who, out] of [['enqueue --wait', waitOut], ['worker', worker.output()]] as const) {
      expect(out, who).not.toMatch(/\n\s+at /);
      expect(out, who).not.toMatch(/Unhandled error event/);
      expect(out.match(/Redis unreachable \(/g)?.length ?? 0, who).toBeGreaterThanOrEqual(1);
    }
  });
});
