/**
 * Delimiter and line-break sniffing on the first decoded text (not papaparse's guesser: it runs on
 * the first CHUNK of a stream, which may be a few bytes, and it cannot tell us what it chose in
 * NODE_STREAM_INPUT mode). Both are then passed to papaparse explicitly.
 */

export const DELIMITERS = [',', ';', '\t', '|'] as const;
export type Delimiter = (typeof DELIMITERS)[number];
export type Newline = '\r\n' | '\n' | '\r';

const SNIFF_RECORDS = 30;

/** The first line break outside quotes decides; a file without one is `\n`. */
export function detectNewline(text: string): Newline {
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') quoted = !quoted;
    else if (!quoted && c === '\r') return text[i + 1] === '\n' ? '\r\n' : i + 1 < text.length ? '\r' : '\r\n';
    else if (!quoted && c === '\n') return '\n';
  }
  return '\n';
}

/** Field counts of the first records for one candidate delimiter (quote-aware, blank lines skipped). */
function fieldCounts(text: string, delimiter: string, complete: boolean): number[] {
  const counts: number[] = [];
  let quoted = false;
  let fields = 1;
  let empty = true;
  for (let i = 0; i < text.length && counts.length < SNIFF_RECORDS; i++) {
    const c = text[i];
    if (c === '"') {
      quoted = !quoted;
      empty = false;
    } else if (quoted) {
      continue;
    } else if (c === delimiter) {
      fields++;
      empty = false;
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      if (!empty) counts.push(fields);
      fields = 1;
      empty = true;
    } else if (c !== ' ') {
      empty = false;
    }
  }
  // The last record counts only if the sample is the whole file (otherwise it may be cut short).
  if (!empty && complete && counts.length < SNIFF_RECORDS) counts.push(fields);
  return counts;
}

/**
 * The delimiter giving the most consistent field count (>1) over the first records; ties go to the
 * one splitting into more fields (a `;` file whose dates read "Jan 5, 2024" has one comma per row
 * too), then to the order `,` `;` tab `|`. One-column files come out as `,`.
 */
export function detectDelimiter(text: string, complete: boolean): Delimiter {
  let best: { delimiter: Delimiter; consistency: number; fields: number } | undefined;
  for (const delimiter of DELIMITERS) {
    const counts = fieldCounts(text, delimiter, complete);
    if (!counts.length) continue;
    const freq = new Map<number, number>();
    for (const n of counts) freq.set(n, (freq.get(n) ?? 0) + 1);
    let mode = 1;
    let modeCount = 0;
    for (const [n, k] of freq) if (k > modeCount || (k === modeCount && n > mode)) [mode, modeCount] = [n, k];
    if (mode < 2) continue;
    const consistency = modeCount / counts.length;
    if (
      !best ||
      consistency > best.consistency + 1e-9 ||
      (Math.abs(consistency - best.consistency) < 1e-9 && mode > best.fields)
    ) {
      best = { delimiter, consistency, fields: mode };
    }
  }
  return best?.delimiter ?? ',';
}
