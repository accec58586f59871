import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { redisUrl } from '../support/redis.ts';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

describe('npm start (the embedded default demo)', () => {
  it('imports the bundled files, serves per-language feeds, and stops cleanly on Ctrl-C', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'calsync-demo-'));
    // REDIS_URL uses the test run's server; without it the demo starts its own redis-server under .data/.
    const child = spawn(process.execPath, [CLI, 'demo', '--sandbox-port', '0', '--serve-port', '0', '--data-dir', dataDir], {
      env: { ...process.env, REDIS_URL: redisUrl(), LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    try {
      const deadline = Date.now() + 90_000;
      while (!out.includes('\nready') && child.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(out, out).toContain('\nready');
      const feeds = [...out.matchAll(/(http:\/\/127\.0\.0\.1:\d+\/feeds\/city\/(en|fr|de)\.ics)/g)].map((m) => m[1] as string);
      expect(feeds).toHaveLength(3);
      for (const url of feeds) {
        const res = await request(url);
        expect(res.statusCode, url).toBe(200);
        const ics = await res.body.text();
        expect(ics).toContain('BEGIN:VEVENT');
        if (url.endsWith('/fr.ics')) expect(ics).toContain('Marché du dimanche');
        if (url.endsWith('/en.ics')) expect(ics).toContain('Farmers market');
        if (url.endsWith('/de.ics')) expect(ics).toContain('Orgelkonzert');
      }
      const exit = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      child.kill('SIGINT');
      const code = await Promise.race([exit, new Promise<string>((r) => setTimeout(() => r('timeout'), 20_000))]);
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 120_000);
});
