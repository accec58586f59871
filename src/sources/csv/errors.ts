import { CalsyncError } from '../../errors/calsync-error.ts';
/**
 * A whole-file refusal: the file cannot be read safely as a whole (ambiguous dates, no header,
 * unknown encoding, a mapping naming a column that does not exist…). Row-level problems are never
 * thrown; they become failures on the row so every other row still goes through.
 */
export class CsvRefusedError extends CalsyncError {
  readonly code = 'csv-refused';
  readonly file: string;
  readonly reason: string;
  /** What the user can do about it, naming the CLI option (`--map`, `--date-format`, `--encoding`). */
  readonly hint?: string;
  constructor(file: string, reason: string, hint?: string) {
    super(`${file}: ${reason}${hint ? ` (${hint})` : ''}`);
    this.name = 'CsvRefusedError';
    this.file = file;
    this.reason = reason;
    if (hint !== undefined) this.hint = hint;
  }
}
