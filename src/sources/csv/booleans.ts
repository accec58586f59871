/**
 * Yes/no cells as spreadsheets write them: TRUE/FALSE (Excel), Yes/No, 1/0, x (a ticked column),
 * y/n, on/off, and the French/German/Nordic/Spanish words the corpus and users send. Any case.
 * Empty → undefined (the site default applies); anything else is a row failure, not a guess.
 */

const TRUE = new Set(['yes', 'y', 'true', 't', '1', 'x', '✓', '✔', 'on', 'checked', 'oui', 'ja', 'j', 'si', 'sí', 'vrai']);
const FALSE = new Set(['no', 'n', 'false', 'f', '0', 'off', 'unchecked', 'non', 'nein', 'nei', 'nej', 'faux', '-']);

export type BoolResult = { ok: true; value: boolean | undefined } | { ok: false; reason: string };

export function parseBoolean(cell: string | undefined): BoolResult {
  const v = (cell ?? '').trim().toLowerCase();
  if (v === '') return { ok: true, value: undefined };
  if (TRUE.has(v)) return { ok: true, value: true };
  if (FALSE.has(v)) return { ok: true, value: false };
  return { ok: false, reason: `'${cell!.trim()}' is not a yes/no value (yes/no, true/false, 1/0, x)` };
}
