// The CLI's entry point. Node's on-disk compile cache keeps V8's compiled code of calsync and its
// libraries between runs (in the OS temp dir; NODE_DISABLE_COMPILE_CACHE=1 turns it off), so a command
// starts in about half the CPU time. It only covers modules loaded after it is enabled, hence the
// dynamic import of the program.
import { enableCompileCache } from 'node:module';

enableCompileCache?.();
const { main } = await import('./program.ts');
await main(process.argv);
