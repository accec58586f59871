// The CLI's entry point. Node's on-disk compile cache keeps V8's compiled code of calsync and its
// libraries between runs (in the OS temp dir; NODE_DISABLE_COMPILE_CACHE=1 turns it off), so a command
// starts in about half the CPU time. It only covers modules loaded after it is enabled, hence the
// dynamic import of the program.
import { enableCompileCache } from 'node:module';

enableCompileCache?.();
const { main, outputWritten } = await import('./program.ts');
await main(process.argv);
// Every command has closed what it opened when it returns (the long-running ones first wait for
// their signal). What may still hold the process is a library's timer nobody can stop: after a
// large Redis value, redis-parser shrinks its buffer pool every 50 ms, for seconds, and an
// unchanged re-import stayed alive 2.4 s after printing its report
// (test/regressions/cli-exit-after-report.test.ts). So the process ends once its output is out.
await outputWritten();
process.exit();
