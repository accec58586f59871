import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const CHILD = fileURLToPath(new URL('./children/parse-with-compile-cache.ts', import.meta.url));

describe('the ICS parser thread and the compile cache', () => {
  it('regression: the parser thread loaded the parser cold on every run although the CLI keeps a compile cache (a worker thread does not take it over from its process); it now uses the process\'s cache', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'calsync-compile-cache-'));
    try {
      // The cache is written when the process ends. Node's own switches for it (even set empty) stay out.
      const { NODE_COMPILE_CACHE: _dir, NODE_DISABLE_COMPILE_CACHE: _off, ...env } = process.env;
      const { stdout } = await promisify(execFile)(process.execPath, [CHILD, dir], { env, timeout: 60_000 });
      expect(JSON.parse(stdout.trim().split('\n').pop()!)).toEqual({ occurrences: 1 });
      const files = await readdir(dir, { recursive: true, withFileTypes: true });
      // The parser and its libraries: a few hundred modules.
      expect(files.filter((f) => f.isFile()).length).toBeGreaterThan(50);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
