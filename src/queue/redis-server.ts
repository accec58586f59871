import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Redis } from 'ioredis';
import { z } from 'zod';
import { CalsyncError } from '../errors/calsync-error.ts';

/** How to get a Redis, for a command that found none. */
const GETTING_REDIS =
  'calsync needs Redis >= 6.2 for its queues. Either:\n' +
  '  - install redis-server: `apt-get install redis-server` (Debian/Ubuntu) or `brew install redis` (macOS), or\n' +
  '  - run `docker compose up -d redis` and set REDIS_URL=redis://127.0.0.1:6379, or\n' +
  '  - point REDIS_URL at any Redis you already run.';

/** Raised when calsync needs a local Redis and none can be started. */
export class RedisUnavailableError extends CalsyncError {
  readonly code = 'redis-unavailable';
  /** `given`: the Redis named (--redis, REDIS_URL) is the one to fix; no advice on getting one. */
  constructor(reason: string, opts: { given?: boolean } = {}) {
    super(opts.given ? reason : `${reason}\n${GETTING_REDIS}`);
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
  /** Password clients must AUTH with; a restart on the same data keeps its clients by passing it again. @defaultValue generated */
  password?: string;
}

export interface LocalRedis {
  /** Carries the password, so anything that connects with it is let in and nothing else is. */
  url: string;
  port: number;
  password: string;
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

/** True when nothing listens on `port` of `host` (we could bind it). */
function portFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, host, () => srv.close(() => resolve(true)));
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
  const port = opts.port || (await freePort());
  const password = opts.password ?? randomBytes(24).toString('hex');
  const storage = opts.dataDir ? ['--dir', path.resolve(opts.dataDir), '--appendonly', 'yes'] : ['--appendonly', 'no'];
  if (opts.dataDir) mkdirSync(opts.dataDir, { recursive: true });
  let output = '';
  const child = await launchRedis({ binary: opts.binary, port, password, args: storage, detached: false, onOutput: (d) => (output = (output + d).slice(-4000)) }).catch((e: Error) => {
    throw new RedisUnavailableError(`${e.message}${output ? `: ${output.trim()}` : ''}`);
  });
  const guard = child.pid ? watchdog(process.pid, child.pid) : undefined;
  child.once('exit', () => guard?.kill());
  return {
    url: urlWith(password, port),
    port,
    password,
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

interface LaunchOptions {
  binary?: string;
  port: number;
  password: string;
  args: string[];
  /** Detached servers outlive this process (the shared embedded Redis); the others are our children. */
  detached: boolean;
  onOutput?: (chunk: string) => void;
}

/**
 * Every redis-server calsync starts: loopback only, protected mode, a password, no eviction (a
 * queue that silently loses jobs is worse than one that refuses writes). Ready when it answers an
 * authenticated PING; refused after 10 s.
 */
async function launchRedis(o: LaunchOptions): Promise<ChildProcess> {
  const bin = findBinary(o.binary);
  // The password goes in through stdin (`-`), never argv: the process list is world-readable.
  const args = ['-', '--port', String(o.port), '--bind', '127.0.0.1', '--protected-mode', 'yes', '--maxmemory-policy', 'noeviction', '--save', '', ...o.args];
  const child = spawn(bin, args, { stdio: ['pipe', o.onOutput ? 'pipe' : 'ignore', o.onOutput ? 'pipe' : 'ignore'], detached: o.detached });
  child.stdout?.on('data', (d: Buffer) => o.onOutput?.(d.toString()));
  child.stderr?.on('data', (d: Buffer) => o.onOutput?.(d.toString()));
  child.stdin?.end(`requirepass ${o.password}\n`);
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new RedisUnavailableError(`redis-server exited (${child.exitCode})`);
    if (await pingOnce(o.port, o.password)) return child;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new RedisUnavailableError(`redis-server did not answer on port ${o.port} within 10 s`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

const urlWith = (password: string, port: number) => `redis://:${encodeURIComponent(password)}@127.0.0.1:${port}`;

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

function pingOnce(port: number, password?: string): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect({ port, host: '127.0.0.1' });
    let got = '';
    const done = (ok: boolean) => {
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(500, () => done(false));
    sock.on('error', () => done(false));
    // AUTH as a RESP array, so a password is never parsed as inline-command syntax.
    sock.on('connect', () => sock.write(password ? `*2\r\n$4\r\nAUTH\r\n$${Buffer.byteLength(password)}\r\n${password}\r\nPING\r\n` : 'PING\r\n'));
    sock.on('data', (d) => {
      got += d.toString();
      if (got.includes('+PONG')) done(true);
      else if (got.startsWith('-') || got.includes('\r\n-')) done(false);
    });
  });
}

/**
 * The embedded Redis of a data directory, shared by every calsync command that uses it: the
 * first one starts `redis-server` (loopback only, a generated password, AOF under
 * `<dataDir>/redis`) and records `{pid, port, password}` in `<dataDir>/redis/embedded.json`
 * (mode 0600); the others find that file and connect to the same server. So `calsync worker`,
 * `calsync enqueue --wait` and `calsync runs` on one config see one queue and one history.
 *
 * The server runs detached (Ctrl-C in one terminal does not pull it from under a worker in
 * another); whichever command leaves it with no other client connected shuts it down.
 */
export interface EmbeddedRedis {
  url: string;
  /** True when this process started the server. */
  started: boolean;
  /** Shuts the server down if no other client is connected (the last one out turns off the light). */
  release(): Promise<void>;
}

const EmbeddedState = z.strictObject({ pid: z.number().int().positive(), port: z.number().int().positive(), password: z.string().min(16) });
type EmbeddedState = z.infer<typeof EmbeddedState>;

export const embeddedStateFile = (dataDir: string) => path.join(path.resolve(dataDir), 'redis', 'embedded.json');
const urlOf = (s: EmbeddedState) => urlWith(s.password, s.port);

/** The running embedded Redis of `dataDir`, if its state file names a live server that accepts the password. */
export async function findEmbeddedRedis(dataDir: string): Promise<string | undefined> {
  const state = readState(embeddedStateFile(dataDir));
  if (!state || !processAlive(state.pid)) return undefined;
  return (await pingOnce(state.port, state.password)) ? urlOf(state) : undefined;
}

export async function embeddedRedis(dataDir: string, opts: { binary?: string } = {}): Promise<EmbeddedRedis> {
  const dir = path.join(path.resolve(dataDir), 'redis');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const lock = path.join(dir, 'embedded.lock');
  await withFileLock(lock, async () => undefined); // wait for a concurrent starter to finish
  const found = await findEmbeddedRedis(dataDir);
  if (found) return { url: found, started: false, release: () => releaseIfLast(found, dataDir) };
  return withFileLock(lock, async () => {
    const again = await findEmbeddedRedis(dataDir);
    if (again) return { url: again, started: false, release: () => releaseIfLast(again, dataDir) };
    const dead = readState(embeddedStateFile(dataDir));
    const state = await spawnEmbedded(dir, dead, opts.binary);
    const file = embeddedStateFile(dataDir);
    writeFileSync(`${file}.tmp`, JSON.stringify(state), { mode: 0o600 });
    renameSync(`${file}.tmp`, file);
    const url = urlOf(state);
    // Back where a dead server was: the commands it died under reconnect within their backoff
    // (a second or two), perhaps after this one leaves, so leaving must not shut it down again.
    // The last of them to leave does.
    const revived = dead !== undefined && state.port === dead.port;
    return { url, started: true, release: revived ? async () => undefined : () => releaseIfLast(url, dataDir) };
  });
}

/**
 * A server that died without being released (killed, crashed, OOM) comes back where the commands
 * still running look for it: the same port and password, which their clients keep retrying, so a
 * worker and `serve` carry on by themselves once any command has started it again.
 */
async function spawnEmbedded(dir: string, dead: EmbeddedState | undefined, binary?: string): Promise<EmbeddedState> {
  const reuse = dead !== undefined && (await portFree(dead.port));
  const port = reuse ? dead.port : await freePort();
  const password = reuse ? dead.password : randomBytes(24).toString('hex');
  const child = await launchRedis({ binary, port, password, args: ['--dir', dir, '--appendonly', 'yes'], detached: true }).catch((e: Error) => {
    throw new RedisUnavailableError(`${e.message} while starting the embedded Redis in ${dir}`);
  });
  child.unref();
  return { pid: child.pid as number, port, password };
}

async function releaseIfLast(url: string, dataDir: string): Promise<void> {
  // No reconnects: after SHUTDOWN the server is meant to be gone.
  const redis = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: true, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    const clients = String(await redis.call('CLIENT', 'LIST', 'TYPE', 'normal')).trim().split('\n').filter(Boolean);
    if (clients.length > 1) return;
    await redis.call('SHUTDOWN').catch(() => undefined); // the connection drops as the server exits
    rmSync(embeddedStateFile(dataDir), { force: true });
  } catch {
    // Already gone: nothing to release.
  } finally {
    redis.disconnect();
  }
}

function readState(file: string): EmbeddedState | undefined {
  try {
    const r = EmbeddedState.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** An exclusive lock file (O_EXCL); a lock older than 30 s is from a crashed process and is taken over. */
async function withFileLock<T>(file: string, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      closeSync(openSync(file, 'wx', 0o600));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const age = Date.now() - (statSafe(file) ?? Date.now());
      if (age > 30_000 || Date.now() > deadline) rmSync(file, { force: true });
      else await new Promise((r) => setTimeout(r, 100));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(file, { force: true });
  }
}

function statSafe(file: string): number | undefined {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}
