import { memoized } from '../../util/memo.ts';
import { ORDER_FORMAT, numericDateParts } from './dates.ts';
import { CsvRefusedError } from './errors.ts';

/**
 * The day/month order of numeric dates, which is only knowable from the WHOLE file ("05/03/13"
 * means nothing until some other row says "05/24/13"): the inspection pass feeds every date cell
 * here and asks for the verdict at the end, holding only the first example of each kind.
 */

const DATE_HINT = 'give the order with --date-format DD/MM/YYYY or --date-format MM/DD/YYYY';

interface Example {
  line: number;
  value: string;
}

/** A file's dates repeat from row to row: each distinct cell is read once (results frozen: shared). */
const partsOf = memoized((value: string) => {
  const parts = numericDateParts(value);
  return parts && Object.freeze(parts);
});

export class DateEvidence {
  private dayFirst?: Example;
  private monthFirst?: Example;
  private ambiguous?: Example;
  private numeric = 0;

  add(value: string, line: number): void {
    const parts = value ? partsOf(value) : undefined;
    if (!parts) return;
    this.numeric++;
    const { first: a, second: b } = parts;
    if (a > 12 && b <= 12) this.dayFirst ??= { line, value };
    else if (b > 12 && a <= 12) this.monthFirst ??= { line, value };
    else if (a <= 12 && b <= 12 && a !== b) this.ambiguous ??= { line, value };
  }

  /** The date format in effect: the user's, else the file's; refuses contradictions and ambiguity. */
  verdict(file: string, given: string | undefined): string | undefined {
    if (given || this.numeric === 0) return given;
    const { dayFirst, monthFirst, ambiguous } = this;
    if (dayFirst && monthFirst) {
      throw new CsvRefusedError(
        file,
        `numeric dates disagree on their order: line ${dayFirst.line} has '${dayFirst.value}' (day first), line ${monthFirst.line} has '${monthFirst.value}' (month first)`,
        `${DATE_HINT}; rows not matching it are then rejected one by one`,
      );
    }
    if (dayFirst) return ORDER_FORMAT.DMY;
    if (monthFirst) return ORDER_FORMAT.MDY;
    if (ambiguous) {
      throw new CsvRefusedError(
        file,
        `numeric dates are ambiguous: every one could be day/month or month/day (e.g. line ${ambiguous.line}: '${ambiguous.value}')`,
        DATE_HINT,
      );
    }
    return ORDER_FORMAT.MDY; // every date has day = month: either order reads the same
  }
}
