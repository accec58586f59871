import { CalsyncError } from '../../errors/calsync-error.ts';
import type { IcsErrorCode } from '../../errors/codes.ts';

/**
 * Whole-file refusals of an ICS feed. Per-event problems never throw (they become failure items);
 * these end the file because going on would import nothing useful or cost the worker its memory.
 * Match on `code`, never on the message.
 */
export type { IcsErrorCode } from '../../errors/codes.ts';

export class IcsError extends CalsyncError {
  override name = 'IcsError';
  readonly code: IcsErrorCode;
  /** File name or URL the error is about. */
  readonly source: string;
  constructor(code: IcsErrorCode, source: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.source = source;
  }
}

/** What a file that is not iCalendar looks like instead. */
export type NotCalendarKind = 'empty' | 'html' | 'binary' | 'no-vcalendar';

export class IcsNotCalendarError extends IcsError {
  override name = 'IcsNotCalendarError';
  readonly looksLike: NotCalendarKind;
  constructor(source: string, looksLike: NotCalendarKind) {
    super('ics-not-a-calendar', source, `${source} is not an iCalendar file: ${DESCRIBE[looksLike]}`);
    this.looksLike = looksLike;
  }
}

const DESCRIBE: Record<NotCalendarKind, string> = {
  empty: 'it is empty',
  html: 'it looks like an HTML page (a login or error page instead of the feed?)',
  binary: 'it is binary data, not text',
  'no-vcalendar': 'no BEGIN:VCALENDAR and no BEGIN:VEVENT in it',
};

/** The per-file cap on what a feed may produce. */
export class IcsLimitError extends IcsError {
  override name = 'IcsLimitError';
  readonly limit: number;
  constructor(source: string, what: string, limit: number) {
    super(
      'ics-too-many-occurrences',
      source,
      `${source}: more than ${limit} ${what} in one file; the file is refused (if it really is that big, raise the limit: --max-occurrences, or the source's maxOccurrences in the config)`,
    );
    this.limit = limit;
  }
}

/** A plain, structured-clone-safe copy (worker threads lose class identity). */
export interface IcsErrorData {
  code: IcsErrorCode;
  source: string;
  message: string;
  looksLike?: NotCalendarKind;
  limit?: number;
}

export function icsErrorData(e: IcsError): IcsErrorData {
  return { code: e.code, source: e.source, message: e.message, ...(e instanceof IcsNotCalendarError ? { looksLike: e.looksLike } : {}), ...(e instanceof IcsLimitError ? { limit: e.limit } : {}) };
}

export function icsErrorFrom(d: IcsErrorData): IcsError {
  if (d.code === 'ics-not-a-calendar' && d.looksLike) return new IcsNotCalendarError(d.source, d.looksLike);
  if (d.code === 'ics-too-many-occurrences' && d.limit !== undefined) {
    const e = new IcsLimitError(d.source, '', d.limit);
    e.message = d.message;
    return e;
  }
  return new IcsError(d.code, d.source, d.message);
}
