import { Worker } from 'node:worker_threads';
import { IcsError, icsErrorFrom } from './errors.ts';
import type { IcsNormalizeOptions, IcsNormalizeResult } from './normalize.ts';
import type { ParseReply, ParseRequest } from './parse-worker.ts';

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
const ENTRY = new URL('./parse-worker.ts', import.meta.url);

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

export function normalizeIcsIsolated(bytes: Uint8Array, opts: IcsNormalizeOptions, limits?: IcsParseLimits, signal?: AbortSignal): Promise<IcsNormalizeResult> {
  const { maxHeapMb, timeoutMs } = resolveLimits(limits);
  const source = opts.sourceName;
  signal?.throwIfAborted();
  return new Promise((resolve, reject) => {
    const worker = new Worker(ENTRY, {
      workerData: { bytes, opts } satisfies ParseRequest,
      resourceLimits: { maxOldGenerationSizeMb: maxHeapMb, maxYoungGenerationSizeMb: Math.min(64, Math.max(8, Math.floor(maxHeapMb / 8))) },
    });
    let settled = false;
    const finish = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      fn();
      void worker.terminate();
    };
    const timer = setTimeout(
      () => finish(() => reject(new IcsError('ics-time-limit', source, `${source}: parsing took longer than ${timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`} and was stopped (the feed is too big or too complex; raise the ICS parse time limit if it is legitimate)`))),
      timeoutMs,
    );
    const onAbort = (): void => finish(() => reject(signal!.reason));
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (reply: ParseReply) =>
      finish(() => {
        if (reply.ok) resolve(reply.result);
        else reject(reply.ics ? icsErrorFrom(reply.ics) : new IcsError('ics-parser-crashed', source, `${source}: the ICS parser failed: ${reply.message}`));
      }),
    );
    worker.once('error', (err: Error & { code?: string }) =>
      finish(() => {
        if (err.code === 'ERR_WORKER_OUT_OF_MEMORY') {
          reject(new IcsError('ics-memory-limit', source, `${source}: the feed exceeded ${maxHeapMb} MB while parsing and was stopped (raise the ICS parser heap limit if it is legitimate)`, { cause: err }));
        } else reject(new IcsError('ics-parser-crashed', source, `${source}: the ICS parser failed: ${err.message}`, { cause: err }));
      }),
    );
    worker.once('exit', (code) => finish(() => reject(new IcsError('ics-parser-crashed', source, `${source}: the ICS parser stopped (exit code ${code}) without an answer`))));
  });
}
