import type { Command } from 'commander';
import type { GlobalOptions } from '../runtime.ts';

export type SetExit = (code: number) => void;
type Register = (parent: Command, globals: () => GlobalOptions, setExit: SetExit) => void;

interface CommandModule {
  /** The command words the module registers. */
  words: string[];
  /** `import` for the `import <kind>` subcommands, else the program. */
  parent?: 'import';
  load: () => Promise<Register>;
}

/**
 * Every command, in the order `--help` lists them. Each module is imported only when its command
 * runs: a command line loads its own run's libraries, not the dashboard's or the worker's
 * (`calsync import ics` starts in about two thirds of the CPU time of loading them all).
 */
const COMMANDS: CommandModule[] = [
  { words: ['import'], parent: 'import', load: async () => (await import('./import-ics.ts')).registerImportIcs },
  { words: ['import'], parent: 'import', load: async () => (await import('./import-csv.ts')).registerImportCsv },
  { words: ['sync'], load: async () => (await import('./sync.ts')).registerSync },
  { words: ['export'], load: async () => (await import('./export.ts')).registerExport },
  { words: ['serve'], load: async () => (await import('./serve.ts')).registerServe },
  { words: ['demo'], load: async () => (await import('./demo.ts')).registerDemo },
  { words: ['sandbox'], load: async () => (await import('./sandbox.ts')).registerSandbox },
  { words: ['worker', 'enqueue'], load: async () => (await import('./worker.ts')).registerWorker },
  { words: ['runs', 'resume', 'config'], load: async () => (await import('./ops.ts')).registerOps },
];

/** The commands to register for a command line whose command word is `word` (all of them for none or an unknown one). */
export async function loadCommands(word: string | undefined): Promise<Array<{ parent?: 'import'; register: Register }>> {
  const known = word !== undefined && COMMANDS.some((c) => c.words.includes(word));
  const wanted = known ? COMMANDS.filter((c) => c.words.includes(word)) : COMMANDS;
  return Promise.all(wanted.map(async (c) => ({ parent: c.parent, register: await c.load() })));
}
