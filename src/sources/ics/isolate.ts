import { getCompileCacheDir } from 'node:module';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { IcsError, icsErrorFrom } from './errors.ts';
import type { IcsNormalizeOptions, IcsNormalizeResult } from './normalize.ts';
import type { ParseReply, ParseRequest } from './parse-worker.ts';
import { WireDecoder } from './wire.ts';
import type { EventDraft, Normalized } from '../../model/draft.ts';
import type { DraftKeys } from '../../write/draft-keys.ts';
import type { ReusedGroupMeta } from './reuse.ts';
import type { ParseThreadData } from './parse-thread.ts';

/**
 * Feed parsing in a worker thread with its own heap limit and a time limit, so that a feed that needs
 * more memory or time than allowed fails its own job with IcsError (`ics-memory-limit`,
 * `ics-time-limit`) instead of exhausting the process's heap (which killed the worker and every job in
 * it) or blocking its event loop (which let the job's lock expire and the job run again elsewhere).
 * Both the CLI and the queue worker go through here (src/runs/import-ics.ts).
 */
export interface IcsParseLimits {
  /** V8 old-generation heap of the parsing thread, in MB. Default CALSYNC_ICS_MAX_HEAP_MB or 1024. */
  maxHeapMb?: number;
  /** Wall-clock limit for parse + normalize, in ms. Default CALSYNC_ICS_PARSE_TIMEOUT_MS or 120000. */
  timeoutMs?: number;
}

const DEFAULT_HEAP_MB = 1024;
const DEFAULT_TIMEOUT_MS = 120_000;
const ENTRY = new URL('./parse-thread.ts', import.meta.url);

/** Process-wide defaults an operator can set without touching each source (env beats the built-in). */
function fromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  const n = raw === undefined ? NaN : Number(raw);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

export function resolveLimits(l: IcsParseLimits = {}): Required<IcsParseLimits> {
  return {
    maxHeapMb: l.maxHeapMb ?? fromEnv('CALSYNC_ICS_MAX_HEAP_MB', DEFAULT_HEAP_MB),
    timeoutMs: l.timeoutMs ?? fromEnv('CALSYNC_ICS_PARSE_TIMEOUT_MS', DEFAULT_TIMEOUT_MS),
  };
}

/**
 * Starting a parser thread costs more than parsing a typical feed: the thread loads (and strips the
 * types of) the whole parser with its libraries into a fresh isolate, cold. So a thread that answered
 * (a result or a typed refusal) for a small file waits, unreferenced, for the next one for a while;
 * a thread that hit a limit, crashed, was aborted, or parsed a big file (its heap still holds that
 * file's garbage) is always terminated. Every parse still runs under the same heap and time limits.
 */
const REUSE_MAX_BYTES = 4 * 2 ** 20;
const IDLE_MS = 15_000;
let idle: { worker: Worker; heapMb: number; timer: NodeJS.Timeout } | undefined;

function spawn(maxHeapMb: number): Worker {
  const compileCache = getCompileCacheDir();
  const worker = new Worker(ENTRY, {
    workerData: (compileCache ? { compileCache } : {}) satisfies ParseThreadData,
    resourceLimits: { maxOldGenerationSizeMb: maxHeapMb, maxYoungGenerationSizeMb: Math.min(64, Math.max(8, Math.floor(maxHeapMb / 8))) },
  });
  // While idle nobody else listens: an error then must not become an uncaught 'error' event.
  worker.on('error', () => undefined);
  worker.on('exit', () => {
    if (idle?.worker === worker) dropIdle();
  });
  return worker;
}

function dropIdle(): void {
  if (!idle) return;
  clearTimeout(idle.timer);
  void idle.worker.terminate();
  idle = undefined;
}

function take(maxHeapMb: number): Worker {
  if (idle && idle.heapMb === maxHeapMb) {
    const { worker, timer } = idle;
    clearTimeout(timer);
    idle = undefined;
    worker.ref();
    return worker;
  }
  return spawn(maxHeapMb);
}

function putBack(worker: Worker, maxHeapMb: number): void {
  if (idle) dropIdle();
  worker.unref();
  const timer = setTimeout(dropIdle, IDLE_MS);
  timer.unref();
  idle = { worker, heapMb: maxHeapMb, timer };
}

/** The thread id of the parser thread waiting for work, if any (tests and diagnostics). */
export function idleIcsParserThread(): number | undefined {
  return idle?.worker.threadId;
}

/**
 * Starts a parser thread ahead of need (a run calls this before it fetches, so loading the parser
 * overlaps the network wait). It is used by the next parse with the same heap limit, or ends idle.
 */
export function prewarmIcsParser(limits?: IcsParseLimits): void {
  const { maxHeapMb } = resolveLimits(limits);
  if (idle?.heapMb === maxHeapMb) return;
  putBack(spawn(maxHeapMb), maxHeapMb);
}

/** How a run takes a parse: cancelled by `signal`, its items as they come, its drafts' keys filed. */
export interface IsolatedParseRun {
  signal?: AbortSignal;
  /**
   * Given, the items are handed over in file order while the thread still parses (each call with the
   * items that arrived since the one before); the result then holds them all as well. A feed refused
   * after some were handed over still rejects: what the caller did with them must wait for this to
   * resolve before it counts (src/write/gate.ts).
   */
  onItems?: (items: Normalized<EventDraft>[]) => void;
  /** Filled with every draft's key, worked out by the thread (src/write/draft-keys.ts). */
  keys?: DraftKeys;
  /**
   * The groups to reuse (normalize.ts `groups`), still being worked out: the thread reads the file
   * meanwhile and waits for them only before its first group. A rejection reuses nothing.
   */
  reuse?: Promise<ReadonlyMap<string, ReusedGroupMeta>>;
}

/** Hands `reuse` to a parser thread once it settles (parse-worker.ts: awaitReuse). */
function reuseLater(reuse: Promise<ReadonlyMap<string, ReusedGroupMeta>>): { flag: Int32Array; port: MessagePort } {
  const { port1, port2 } = new MessageChannel();
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const send = (map: ReadonlyMap<string, ReusedGroupMeta>): void => {
    port1.postMessage(map);
    port1.close();
    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
  };
  reuse.then(send, () => send(new Map()));
  return { flag, port: port2 };
}

export function normalizeIcsIsolated(bytes: Uint8Array, opts: IcsNormalizeOptions, limits?: IcsParseLimits, run: IsolatedParseRun = {}): Promise<IcsNormalizeResult> {
  const { signal, onItems, keys } = run;
  const { maxHeapMb, timeoutMs } = resolveLimits(limits);
  const source = opts.sourceName;
  signal?.throwIfAborted();
  // Keys hashed with another source's slugs would be filed for these drafts: the keys say whose they are.
  if (keys && keys.sourceKey !== opts.sourceKey) throw new TypeError(`draft keys of source ${keys.sourceKey} asked for a parse of ${opts.sourceKey}`);
  return new Promise((resolve, reject) => {
    const worker = take(maxHeapMb);
    let settled = false;
    const finish = (fn: () => void, reusable = false): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      fn();
      if (reusable && bytes.byteLength <= REUSE_MAX_BYTES) putBack(worker, maxHeapMb);
      else void worker.terminate();
    };
    const timer = setTimeout(
      () => finish(() => reject(new IcsError('ics-time-limit', source, `${source}: parsing took longer than ${timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`} and was stopped (the feed is too big or too complex; raise the ICS parse time limit if it is legitimate)`))),
      timeoutMs,
    );
    const onAbort = (): void => finish(() => reject(signal!.reason));
    signal?.addEventListener('abort', onAbort, { once: true });
    const items: Normalized<EventDraft>[] = [];
    const wire = new WireDecoder(keys);
    const decode = (part: unknown[]): void => {
      const from = items.length;
      wire.decode(part, items);
      if (onItems && items.length > from) onItems(items.slice(from));
    };
    const onMessage = (reply: ParseReply): void => {
      if ('part' in reply) return settled ? undefined : decode(reply.part);
      finish(() => {
        if (reply.ok) {
          decode(reply.result.items);
          resolve({ items, summary: reply.result.summary, ...(reply.result.groups ? { groups: reply.result.groups } : {}) });
        }
        else reject(reply.ics ? icsErrorFrom(reply.ics) : new IcsError('ics-parser-crashed', source, `${source}: the ICS parser failed: ${reply.message}`));
      }, reply.ok || reply.ics !== undefined);
    };
    const onError = (err: Error & { code?: string }): void =>
      finish(() => {
        if (err.code === 'ERR_WORKER_OUT_OF_MEMORY') {
          reject(new IcsError('ics-memory-limit', source, `${source}: the feed exceeded ${maxHeapMb} MB while parsing and was stopped (raise the ICS parser heap limit if it is legitimate)`, { cause: err }));
        } else reject(new IcsError('ics-parser-crashed', source, `${source}: the ICS parser failed: ${err.message}`, { cause: err }));
      });
    const onExit = (code: number): void => finish(() => reject(new IcsError('ics-parser-crashed', source, `${source}: the ICS parser stopped (exit code ${code}) without an answer`)));
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    const later = run.reuse && reuseLater(run.reuse);
    const req: ParseRequest = { bytes, opts, stream: onItems !== undefined, ...(keys ? { keys: { status: keys.status } } : {}), ...(later ? { reuseLater: later } : {}) };
    worker.postMessage(req, later ? [later.port] : []);
  });
}
