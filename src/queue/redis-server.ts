import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/** Raised when calsync needs a local Redis and none can be started. */
export class RedisUnavailableError extends Error {
  readonly code = 'calsync:redis-unavailable';
  constructor(reason: string) {
    super(
      `${reason}\n` +
        'calsync needs Redis >= 6.2 for its queues. Either:\n' +
        '  - install redis-server: `apt-get install redis-server` (Debian/Ubuntu) or `brew install redis` (macOS), or\n' +
        '  - run `docker compose up -d redis` and set REDIS_URL=redis://127.0.0.1:6379, or\n' +
        '  - point REDIS_URL at any Redis you already run.',
    );
    this.name = 'RedisUnavailableError';
  }
}

export interface LocalRedisOptions {
  /** Directory for the AOF/RDB files; omit for a throwaway in-memory server. */
  dataDir?: string;
  /** Port to listen on; 0 picks a free one. @defaultValue 0 */
  port?: number;
  /** redis-server binary. @defaultValue `redis-server` on PATH, or $REDIS_SERVER_BIN */
  binary?: string;
}

export interface LocalRedis {
  url: string;
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

export async function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, host, () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

function findBinary(explicit?: string): string {
  const bin = explicit ?? process.env.REDIS_SERVER_BIN ?? 'redis-server';
  try {
    execFileSync(bin, ['--version'], { stdio: 'ignore' });
    return bin;
  } catch {
    throw new RedisUnavailableError(`No Redis server: \`${bin}\` was not found and REDIS_URL is not set.`);
  }
}

/**
 * Starts a `redis-server` child on a loopback port. With `dataDir` it persists with AOF (the
 * embedded default of `npm start`); without, it is a throwaway server for tests.
 */
export async function startLocalRedis(opts: LocalRedisOptions = {}): Promise<LocalRedis> {
  const bin = findBinary(opts.binary);
  const port = opts.port || (await freePort());
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--maxmemory-policy', 'noeviction', '--protected-mode', 'yes'];
  if (opts.dataDir) {
    mkdirSync(opts.dataDir, { recursive: true });
    args.push('--dir', path.resolve(opts.dataDir), '--appendonly', 'yes', '--save', '');
  } else {
    args.push('--save', '', '--appendonly', 'no');
  }
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const guard = child.pid ? watchdog(process.pid, child.pid) : undefined;
  child.once('exit', () => guard?.kill());
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  child.stderr?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  const deadline = Date.now() + 10_000;
  // Ready when it accepts a PING on the port.
  for (;;) {
    if (child.exitCode !== null) throw new RedisUnavailableError(`redis-server exited (${child.exitCode}): ${output.trim()}`);
    if (await pingOnce(port)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new RedisUnavailableError(`redis-server did not answer on port ${port} within 10 s: ${output.trim()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    process: child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const t = setTimeout(() => child.kill('SIGKILL'), 5000);
        child.once('exit', () => {
          clearTimeout(t);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

/**
 * redis-server is our child but does not die with us: killed without stop() (SIGKILL, a crash, npm
 * ending its script) we would leave it running on its port and data directory. A detached shell loop
 * waits for this process to be gone, then stops the server. Killed by the exit handler above when the
 * server ends first, so it never signals a reused pid.
 */
function watchdog(parentPid: number, childPid: number): ChildProcess {
  const loop = `while kill -0 ${parentPid} 2>/dev/null; do sleep 1; done; kill -TERM ${childPid} 2>/dev/null`;
  const w = spawn('sh', ['-c', loop], { stdio: 'ignore', detached: true });
  w.unref();
  return w;
}

function pingOnce(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect({ port, host: '127.0.0.1' });
    const done = (ok: boolean) => {
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(500, () => done(false));
    sock.on('error', () => done(false));
    sock.on('connect', () => sock.write('PING\r\n'));
    sock.on('data', (d) => done(d.toString().startsWith('+PONG')));
  });
}
