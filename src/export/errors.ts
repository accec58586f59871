import { CalsyncError } from '../errors/calsync-error.ts';
import type { ExportErrorCode } from '../errors/codes.ts';

/**
 * Errors of the ICS export. Each carries a stable `code` to switch on (the job glue maps them to
 * failed-job reasons, the CLI to exit messages); messages name the field or path at fault and
 * never carry credentials.
 */

/** Base class: every error this module throws on purpose is one of these. */
export class ExportError extends CalsyncError {
  readonly code: ExportErrorCode;
  constructor(code: ExportErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ExportError';
    this.code = code;
  }
}

/** The export parameters are unusable (bad feed name, empty language list, window end before start…). */
export class ExportParamsError extends ExportError {
  readonly field: string;
  constructor(field: string, message: string) {
    super('export-params-invalid', `\`${field}\`: ${message}`);
    this.name = 'ExportParamsError';
    this.field = field;
  }
}

/** The run was aborted through its signal; no artifact was replaced. */
export class ExportAbortedError extends ExportError {
  constructor(options?: { cause?: unknown }) {
    super('export-aborted', 'ICS export aborted', options);
    this.name = 'ExportAbortedError';
  }
}

/** Reading one language's window from the site failed (the cause is the client's ApiError/NetworkError). */
export class ExportFetchError extends ExportError {
  readonly lang: string;
  constructor(lang: string, options: { cause: unknown }) {
    const why = options.cause instanceof Error ? options.cause.message : String(options.cause);
    super('export-fetch-failed', `reading the "${lang}" events failed: ${why}`, options);
    this.name = 'ExportFetchError';
    this.lang = lang;
  }
}

/** Writing an artifact failed (disk full, permissions); the previous file, if any, is untouched. */
export class ArtifactWriteError extends ExportError {
  readonly path: string;
  constructor(path: string, options: { cause: unknown }) {
    const why = options.cause instanceof Error ? options.cause.message : String(options.cause);
    super('export-artifact-write-failed', `writing ${path} failed: ${why}`, options);
    this.name = 'ArtifactWriteError';
    this.path = path;
  }
}

/** One event that cannot be rendered (unparseable dates); it is reported and left out of the feed. */
export class EventRenderError extends ExportError {
  readonly eventId: number;
  constructor(eventId: number, message: string) {
    super('export-event-invalid', `event ${eventId}: ${message}`);
    this.name = 'EventRenderError';
    this.eventId = eventId;
  }
}
