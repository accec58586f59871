import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

/** The CLI with its stdout closed by the reader before it writes (`calsync runs | head` once head has its lines). */
function withClosedStdout(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('regression: `calsync runs | head` ended in an EPIPE stack trace', () => {
  it('a command whose reader closed the pipe ends as it would have, with nothing on stderr', async () => {
    const r = await withClosedStdout(['--help']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });
});
