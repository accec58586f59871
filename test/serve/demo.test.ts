import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { redisUrl } from '../support/redis.ts';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Pids of live processes whose command line or working directory mentions `text` (the data dir). */
function processesMentioning(text: string): number[] {
  const pids: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      // redis-server rewrites its command line, but runs in its --dir (under the data dir).
      const cmd = `${readFileSync(`/proc/${d}/cmdline`, 'utf8')}\0${readlinkSync(`/proc/${d}/cwd`)}`;
      const state = /\) (\w)/.exec(readFileSync(`/proc/${d}/stat`, 'utf8'))?.[1];
      if (cmd.includes(text) && state !== 'Z') pids.push(Number(d));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

async function until(cond: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!cond() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  return cond();
}

/** `npm start` with its own redis-server (no REDIS_URL), as a user runs it. */
function npmStart(dataDir: string, ...args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn' };
  delete env.REDIS_URL;
  const child = spawn('npm', ['start', '--', '--data-dir', dataDir, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const io = { out: '' };
  child.stdout.on('data', (d) => (io.out += d));
  child.stderr.on('data', (d) => (io.out += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, io, exited };
}

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
      // regression: the demo printed raw JSON log lines before its banner.
      expect(out.slice(0, out.indexOf('calsync demo is running'))).not.toContain('{"level"');
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

  it('regression: npm start with its port taken printed EADDRINUSE, never exited and left redis-server behind', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'calsync-demo-taken-'));
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as net.AddressInfo).port;
    const { child, io, exited } = npmStart(dataDir, '--sandbox-port', String(port), '--serve-port', '0');
    try {
      const code = await Promise.race([exited, new Promise<string>((r) => setTimeout(() => r('timeout'), 20_000))]);
      expect(code, io.out).not.toBe('timeout');
      expect(code).not.toBe(0);
      expect(io.out).toContain(`port ${port} is in use: stop what runs there or set --sandbox-port`);
      expect(io.out).not.toMatch(/listen EADDRINUSE/);
      expect(processesMentioning(dataDir)).toEqual([]);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      blocker.close();
    }
  }, 60_000);

  it.each(['SIGTERM', 'SIGINT'] as const)('regression: %s to the npm process left the demo and its redis-server running', async (signal) => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'calsync-demo-signal-'));
    const { child, io, exited } = npmStart(dataDir, '--sandbox-port', '0', '--serve-port', '0');
    try {
      expect(await until(() => io.out.includes('\nready') || child.exitCode !== null, 90_000), io.out).toBe(true);
      expect(io.out).toContain('\nready');
      // The demo (node) and its redis-server both run, both naming the data dir.
      expect(processesMentioning(dataDir).length).toBeGreaterThanOrEqual(2);
      child.kill(signal);
      const code = await Promise.race([exited, new Promise<string>((r) => setTimeout(() => r('timeout'), 30_000))]);
      expect(code, io.out).not.toBe('timeout');
      expect(await until(() => processesMentioning(dataDir).length === 0, 10_000), `left running: ${processesMentioning(dataDir)}`).toBe(true);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      for (const pid of processesMentioning(dataDir)) process.kill(pid, 'SIGKILL');
    }
  }, 150_000);
});
