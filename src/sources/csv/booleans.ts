import { memoized } from '../../util/memo.ts';

/**
 * Yes/no cells as spreadsheets write them: TRUE/FALSE (Excel), Yes/No, 1/0, x (a ticked column),
 * y/n, on/off, and the French/German/Nordic/Spanish words the corpus and users send. Any case.
 * Empty → undefined (the site default applies); anything else is a row failure, not a guess.
 */

const TRUE = new Set(['yes', 'y', 'true', 't', '1', 'x', '✓', '✔', 'on', 'checked', 'oui', 'ja', 'j', 'si', 'sí', 'vrai']);
const FALSE = new Set(['no', 'n', 'false', 'f', '0', 'off', 'unchecked', 'non', 'nein', 'nei', 'nej', 'faux', '-']);

export type BoolResult = { ok: true; value: boolean | undefined } | { ok: false; reason: string };

/** A yes/no cell. The result is shared with other calls (a column holds a few spellings, row after row), and frozen. */
export function parseBoolean(cell: string | undefined): BoolResult {
  return cell ? booleanOf(cell) : EMPTY;
}

const EMPTY: BoolResult = Object.freeze({ ok: true, value: undefined });
const booleanOf = memoized((cell: string) => Object.freeze(readBoolean(cell)));

function readBoolean(cell: string): BoolResult {
  const v = cell.trim().toLowerCase();
  if (v === '') return { ok: true, value: undefined };
  if (TRUE.has(v)) return { ok: true, value: true };
  if (FALSE.has(v)) return { ok: true, value: false };
  return { ok: false, reason: `'${cell.trim()}' is not a yes/no value (yes/no, true/false, 1/0, x)` };
}
