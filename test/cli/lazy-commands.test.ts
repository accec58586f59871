import { describe, expect, it } from 'vitest';
import { loadCommands } from '../../src/cli/commands/index.ts';
import { commandWord } from '../../src/cli/program.ts';

/**
 * Every command line loaded every command's libraries (the dashboard's express and Bull Board, the
 * worker's, the sandbox's) before parsing: `calsync import ics` spent ~2 s of CPU starting. The
 * program now registers only the command its line names; help and unknown words still see all.
 */
describe('the CLI loads only the command its line names', () => {
  it.each([
    [['import', 'ics', 'f.ics'], 'import'],
    [['--redis', 'redis://x', '--prefix', 'p', 'sync', '--from', 'a'], 'sync'],
    [['--log-level', 'debug', 'worker'], 'worker'],
    [['--config=c.json', 'runs'], 'runs'],
    [['--help'], undefined],
    [[], undefined],
  ])('%j: the command word is %s', (args, word) => {
    expect(commandWord(args)).toBe(word);
  });

  it('a known word loads its own module only; import loads both import kinds', async () => {
    expect(await loadCommands('sync')).toHaveLength(1);
    expect(await loadCommands('enqueue')).toHaveLength(1);
    const imports = await loadCommands('import');
    expect(imports.map((c) => c.parent)).toEqual(['import', 'import']);
  });

  it('help, no word or an unknown word loads every command (for the listing and "did you mean")', async () => {
    for (const word of [undefined, 'help', 'impor']) expect(await loadCommands(word)).toHaveLength(9);
  });
});
