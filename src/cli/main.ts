import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { CalsyncError } from '../errors/calsync-error.ts';
import { registerImportCsv } from './commands/import-csv.ts';
import { registerImportIcs } from './commands/import-ics.ts';
import { registerSync } from './commands/sync.ts';
import { registerExport } from './commands/export.ts';
import { registerServe } from './commands/serve.ts';
import { registerDemo } from './commands/demo.ts';
import { registerOps } from './commands/ops.ts';
import { registerSandbox } from './commands/sandbox.ts';
import { registerWorker } from './commands/worker.ts';
import type { GlobalOptions } from './runtime.ts';
import { terminalSafe } from '../util/terminal.ts';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** Exit codes: 0 nothing failed, 2 some items failed, 1 the run failed as a whole. */
let exitCode = 0;
const setExit = (code: number) => {
  exitCode = Math.max(exitCode, code);
};

export function buildProgram(): Command {
  const program = new Command('calsync')
    .description('Keeps event-calendar sites fed and in sync: ICS/CSV import, ICS subscription export, site-to-site sync')
    .option('--config <file>', 'config file (JSON or YAML; default $CALSYNC_CONFIG or ./calsync.config.json)')
    .option('--redis <url>', 'Redis URL (default $REDIS_URL, the config, or the embedded local server)')
    .option('--log-level <level>', 'pino log level', process.env.LOG_LEVEL ?? 'warn')
    .option('--prefix <prefix>', 'Redis key prefix for queues and state', process.env.CALSYNC_PREFIX ?? 'calsync')
    .version(VERSION, '--version', 'print the calsync version')
    .showHelpAfterError();
  const globals = () => program.opts<GlobalOptions>();
  const importCmd = program.command('import').description('Import events, venues or organizers from a feed or file');
  registerImportIcs(importCmd, globals, setExit);
  registerImportCsv(importCmd, globals, setExit);
  registerSync(program, globals, setExit);
  registerExport(program, globals, setExit);
  registerServe(program, globals, setExit);
  registerDemo(program, globals, setExit);
  registerSandbox(program);
  registerWorker(program, globals, setExit);
  registerOps(program, globals, setExit);
  return program;
}

async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  program.exitOverride();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode === 0 ? 0 : 1;
      return;
    }
    const known = err instanceof CalsyncError;
    // One line per problem (bad options report each), each with the program's name; printed, never interpreted.
    for (const line of String((err as Error).message).split('\n')) process.stderr.write(`calsync: ${terminalSafe(line)}\n`);
    if (!known && process.env.LOG_LEVEL === 'debug') process.stderr.write(`${(err as Error).stack}\n`);
    process.exitCode = 1;
    return;
  }
  process.exitCode = exitCode;
}

await main(process.argv);
