import { CalsyncError } from '../errors/calsync-error.ts';

/** A queued job whose name no worker knows (added by hand, or by a newer calsync). */
export class JobKindUnknownError extends CalsyncError {
  override name = 'JobKindUnknownError';
  readonly code = 'job-kind-unknown';
  readonly kind: string;
  constructor(kind: string) {
    super(`unknown job kind "${kind}"`);
    this.kind = kind;
  }
}

/**
 * A queued payload that its job kind's schema refuses: not a failed run of a source (it is kept
 * out of the run history), and no retry can fix it.
 */
export class JobPayloadError extends CalsyncError {
  override name = 'JobPayloadError';
  readonly code = 'job-payload-invalid';
  readonly kind: string;
  readonly problems: string[];
  constructor(kind: string, problems: string[]) {
    super(`invalid ${kind} payload: ${problems.join('; ')}`);
    this.kind = kind;
    this.problems = problems;
  }
}

/** A part of a planned run kept in Redis (a sync's plan or page, a run's finish job) is gone: enqueue the run again. */
export class JobStateMissingError extends CalsyncError {
  override name = 'JobStateMissingError';
  readonly code = 'run-state-missing';
}

/** A CSV import's chunk is gone from Redis; unlike run-state-missing it is retried (as it always was). */
export class CsvChunkMissingError extends CalsyncError {
  override name = 'CsvChunkMissingError';
  readonly code = 'csv-chunk-missing';
}

/**
 * A job names a source, export or sync its worker's config does not declare. `what`: `no CSV
 * source named "x"`. The worker read the file when it started, so an entry added since (which
 * `calsync enqueue` already accepts) needs a restart: the message says so.
 */
export class UnknownConfigEntryError extends CalsyncError {
  override name = 'UnknownConfigEntryError';
  readonly code = 'config-entry-unknown';
  constructor(what: string) {
    super(`${what} in the worker's config (read when the worker started: restart \`calsync worker\` after adding it to the file)`);
  }
}
