import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { embeddedRedis, embeddedStateFile, findEmbeddedRedis, startLocalRedis } from '../../src/queue/redis-server.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What an attacker on the machine would type: a plain command, no AUTH. */
function unauthenticated(port: number): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const sock = net.connect({ port, host: '127.0.0.1' }, () => sock.write('CONFIG GET requirepass\r\n'));
    sock.on('data', (d) => {
      sock.destroy();
      resolve(d.toString());
    });
    sock.on('error', reject);
  });
}

describe('the embedded Redis of a data directory', () => {
  it('regression: worker and enqueue --wait each started their own redis-server on one data dir; now the second finds the first', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'calsync-emb-'));
    const a = await embeddedRedis(dir);
    const b = await embeddedRedis(dir);
    const ra = new Redis(a.url);
    const rb = new Redis(b.url);
    try {
      expect(a.started).toBe(true);
      expect(b.started).toBe(false);
      expect(b.url).toBe(a.url);
      // One server: what one command writes, the other reads.
      await ra.set('calsync-emb-probe', 'same');
      expect(await rb.get('calsync-emb-probe')).toBe('same');
      // The state file that lets other commands find it is private to the user.
      expect(statSync(embeddedStateFile(dir)).mode & 0o777).toBe(0o600);
      // The first one leaving does not pull the server from under the other.
      ra.disconnect();
      await sleep(100);
      await a.release();
      expect(await findEmbeddedRedis(dir)).toBe(a.url);
      expect(await rb.get('calsync-emb-probe')).toBe('same');
    } finally {
      ra.disconnect();
      rb.disconnect();
      await sleep(100);
      await b.release();
    }
    // The last one out shuts it down; the next command starts it again from the AOF.
    await sleep(300);
    expect(await findEmbeddedRedis(dir)).toBeUndefined();
    const c = await embeddedRedis(dir);
    const rc = new Redis(c.url);
    expect(await rc.get('calsync-emb-probe')).toBe('same');
    rc.disconnect();
    await sleep(100);
    await c.release();
  });

  it('regression: the embedded Redis had no password; a client without it is refused', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'calsync-emb-'));
    const e = await embeddedRedis(dir);
    const port = Number(new URL(e.url).port);
    try {
      expect(await unauthenticated(port)).toMatch(/^-NOAUTH/);
      expect(new URL(e.url).hostname).toBe('127.0.0.1');
    } finally {
      await sleep(100);
      await e.release();
    }
  });

  it('regression: the Redis that `npm start` (demo) starts had no password; a client without it is refused', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'calsync-demo-redis-'));
    const local = await startLocalRedis({ dataDir: dir });
    const client = new Redis(local.url);
    try {
      expect(await unauthenticated(local.port)).toMatch(/^-NOAUTH/);
      expect(await client.ping()).toBe('PONG');
      // A restart on the same data with the same password keeps its clients (the chaos suite restarts it mid-run).
      await client.set('calsync-demo-probe', 'kept');
      await local.stop();
      const again = await startLocalRedis({ dataDir: dir, port: local.port, password: local.password });
      try {
        expect(again.url).toBe(local.url);
        expect(await client.get('calsync-demo-probe')).toBe('kept');
      } finally {
        await again.stop();
      }
    } finally {
      client.disconnect();
      await local.stop();
    }
  });
  it('regression: an embedded Redis killed under a running worker came back on a new port and password, so the worker and serve never reconnected', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'calsync-emb-'));
    const first = await embeddedRedis(dir);
    // A worker's connection: it retries its URL for as long as it runs.
    const worker = new Redis(first.url, { maxRetriesPerRequest: null, retryStrategy: () => 100 });
    worker.on('error', () => undefined);
    try {
      await worker.set('calsync-emb-kill-probe', 'kept');
      // Killed without release (kill -9, OOM): its state file stays behind, naming a dead pid.
      const pid = (JSON.parse(readFileSync(embeddedStateFile(dir), 'utf8')) as { pid: number }).pid;
      process.kill(pid, 'SIGKILL');
      while (await findEmbeddedRedis(dir)) await sleep(50);
      // The next command (`calsync runs`, a second worker) starts it again from the AOF...
      const again = await embeddedRedis(dir);
      expect(again.started).toBe(true);
      // ...where the running worker looks for it...
      expect(again.url).toBe(first.url);
      // ...and leaves it running as it ends, though the worker may not have reconnected yet.
      await again.release();
      expect(await findEmbeddedRedis(dir)).toBe(first.url);
      expect(await worker.get('calsync-emb-kill-probe')).toBe('kept');
    } finally {
      worker.disconnect();
      await sleep(100);
      // The last one out shuts it down.
      await (await embeddedRedis(dir)).release();
    }
    await sleep(300);
    expect(await findEmbeddedRedis(dir)).toBeUndefined();
  });
});
