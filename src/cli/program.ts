import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { CalsyncError } from '../errors/calsync-error.ts';
import { loadCommands } from './commands/index.ts';
import type { GlobalOptions } from './runtime.ts';
import { terminalSafe } from '../util/terminal.ts';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** Exit codes: 0 nothing failed, 2 some items failed, 1 the run failed as a whole. */
let exitCode = 0;
const setExit = (code: number) => {
  exitCode = Math.max(exitCode, code);
};

/** The program with the commands that `argv` can reach (all of them for help or an unknown word). */
export async function buildProgram(argv: string[]): Promise<Command> {
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
  for (const command of await loadCommands(commandWord(argv.slice(2)))) {
    command.register(command.parent === 'import' ? importCmd : program, globals, setExit);
  }
  return program;
}

/** Global options that take a value, so the word after one is not the command. */
const GLOBAL_VALUE_OPTIONS = new Set(['--config', '--redis', '--log-level', '--prefix']);

/** The command word of a command line (`import` in `--redis x import ics f`), if any. */
export function commandWord(args: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (GLOBAL_VALUE_OPTIONS.has(arg)) i++;
    else if (!arg.startsWith('-')) return arg;
  }
  return undefined;
}

/** Resolves once stdout and stderr hold nothing unwritten (or are closed), within 2 s. */
export async function outputWritten(): Promise<void> {
  const written = (s: NodeJS.WriteStream) =>
    s.destroyed || s.writableLength === 0
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 2000);
          const done = () => {
            clearTimeout(timer);
            resolve();
          };
          s.once('drain', done).once('error', done).once('close', done);
        });
  await Promise.all([written(process.stdout), written(process.stderr)]);
}

/** Runs one calsync command line and sets process.exitCode (see the exit codes above). */
export async function main(argv: string[]): Promise<void> {
  // A reader that stops early (`calsync runs | head`) closes the pipe: the output it did not want has
  // nowhere to go, which is no error of the command.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
  const program = await buildProgram(argv);
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

