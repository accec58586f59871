import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { startLocalRedis, type LocalRedis } from '../src/queue/redis-server.ts';

const CLI = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
export const USER = 'bench';
export const PASSWORD = 'bench-password';

export interface SandboxProcess {
  url: string;
  origin: string;
  child: ChildProcess;
  stats(): Promise<{ total: number; writes: number; byRoute: Record<string, number> }>;
  resetStats(): Promise<void>;
  stop(): Promise<void>;
}

/** The sandbox in its own process, so the site and calsync do not share one event loop. */
export async function sandboxProcess(args: string[] = []): Promise<SandboxProcess> {
  const child = spawn(process.execPath, [CLI, 'sandbox', '--port', '0', ...args], { env: { ...process.env, CALSYNC_USER: USER, CALSYNC_PASSWORD: PASSWORD }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const deadline = Date.now() + 20_000;
  while (!/REST root:\s+(\S+)/.test(out)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`sandbox did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const url = /REST root:\s+(\S+)/.exec(out)![1]!;
  const origin = new URL(url).origin;
  return {
    url,
    origin,
    child,
    stats: async () => (await (await request(`${origin}/__sandbox/stats`)).body.json()) as never,
    resetStats: async () => void (await (await request(`${origin}/__sandbox/stats/reset`, { method: 'POST' })).body.dump()),
    stop: () => new Promise((r) => {
      if (child.exitCode !== null) return r();
      child.once('exit', () => r());
      child.kill('SIGTERM');
    }),
  };
}

export async function benchRedis(): Promise<LocalRedis> {
  return startLocalRedis();
}

/** Serves one body over loopback at `/feed` (feeds for import benches); given a function, what it returns at each request (a feed that changes between runs). */
export async function staticServer(body: string | Buffer | (() => string | Buffer), type = 'text/calendar'): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((_q, res) => {
    res.writeHead(200, { 'content-type': type });
    res.end(typeof body === 'function' ? body() : body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/feed`, close: () => new Promise((r) => server.close(() => r())) };
}

export function cliPath(): string {
  return CLI;
}
