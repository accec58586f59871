import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../src/queue/redis-server.ts';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

/** Found running calsync as a service: `serve` with its Redis down. */
describe('regression: `calsync serve` printed an ioredis "Unhandled error event" stack for every reconnect while Redis was down', () => {
  it('says once that Redis is unreachable, and nothing more, while it keeps serving', async () => {
    const dead = await freePort();
    const port = await freePort();
    const child = spawn(process.execPath, [CLI, '--redis', `redis://127.0.0.1:${dead}/0`, 'serve', '--port', String(port)], {
      cwd: mkdtempSync(path.join(tmpdir(), 'calsync-serve-down-')),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const closed = new Promise<void>((r) => child.on('close', () => r()));
    try {
      // Long enough for several of ioredis' reconnect attempts (its backoff starts at 50 ms).
      const deadline = Date.now() + 15_000;
      while (!out.includes('/healthz') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      await new Promise((r) => setTimeout(r, 2500));
      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(health.status).toBe(503);
    } finally {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await closed;
      clearTimeout(killer);
    }
    expect(out).not.toContain('Unhandled error event');
    expect(out.match(/Redis unreachable/g)).toHaveLength(1);
  }, 40_000);
});
