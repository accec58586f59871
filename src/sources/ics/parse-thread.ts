/**
 * The parser thread's entry (isolate.ts starts it): it turns on Node's compile cache when the
 * process that starts the thread has it on (the CLI and the queue worker do, src/cli/main.ts),
 * then loads the parser. A worker thread does not take the cache over from its process, and
 * loading the parser cold was most of a thread's start: a run's writes wait for its feed to be
 * parsed (src/write/gate.ts), and the thread's start is part of that wait
 * (test/ics/parse-thread-compile-cache.test.ts). The cache only covers modules loaded after it
 * is enabled, hence the dynamic import.
 */
import { enableCompileCache } from 'node:module';
import { workerData } from 'node:worker_threads';

export interface ParseThreadData {
  /** The starting process's compile cache directory (module.getCompileCacheDir); none: no cache. */
  compileCache?: string;
}

const dir = (workerData as ParseThreadData | undefined)?.compileCache;
if (dir) enableCompileCache(dir);
await import('./parse-worker.ts');
