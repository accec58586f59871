/**
 * A bounded list of warnings for one file. Feed content decides how many problems there are, so the
 * list keeps the first `max` (each cut to `maxChars`) and counts the rest: 5 million unterminated
 * `BEGIN:` lines once made a 3.3 GB warnings array.
 */
export const MAX_WARNINGS = 200;
export const MAX_WARNING_CHARS = 300;

export class WarningList {
  private readonly kept: string[] = [];
  private dropped = 0;
  private readonly max: number;
  private readonly maxChars: number;

  constructor(max = MAX_WARNINGS, maxChars = MAX_WARNING_CHARS) {
    this.max = max;
    this.maxChars = maxChars;
  }

  add(w: string): void {
    if (this.kept.length < this.max) this.kept.push(truncateWarning(w, this.maxChars));
    else this.dropped++;
  }

  /** Another list's warnings, in order, its dropped count included. */
  addAll(other: WarningList): void {
    for (const w of other.kept) this.add(w);
    this.dropped += other.dropped;
  }

  /** Warnings added so far, kept or not. */
  get count(): number {
    return this.kept.length + this.dropped;
  }

  /** Warnings not kept so far. */
  get more(): number {
    return this.dropped;
  }

  /** The kept warnings, then one `and K more` line when some were dropped. */
  list(): string[] {
    return this.dropped ? [...this.kept, `and ${this.dropped} more warning(s) not shown`] : [...this.kept];
  }
}

/** Cut a warning to `maxChars`, saying how much was cut. */
export function truncateWarning(w: string, maxChars = MAX_WARNING_CHARS): string {
  return w.length <= maxChars ? w : `${w.slice(0, maxChars)}… (${w.length - maxChars} more characters)`;
}
