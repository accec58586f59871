/**
 * Text from feeds, CSV cells and sites printed on a terminal: C0 controls, DEL and C1 controls
 * become visible escapes (`\x1b[2J` prints as the six characters `\x1B[2J`), so a cell cannot move
 * the cursor, rewrite earlier lines, retitle the window or hide text. Newlines are escaped too
 * unless the caller prints multi-line text of its own making (`multiline`).
 */
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;
const CONTROLS_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

export function terminalSafe(text: string, opts: { multiline?: boolean } = {}): string {
  return text.replace(opts.multiline ? CONTROLS_BUT_NEWLINE : CONTROLS, (c) => NAMED[c] ?? `\\x${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}
