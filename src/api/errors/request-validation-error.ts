import { CalsyncError } from '../../errors/calsync-error.ts';

/** The parts of a zod issue reported; zod's own issues fit. */
export interface ValidationIssue {
  path: PropertyKey[];
  message: string;
  code?: string;
}

/**
 * A body, query or identifier was refused before anything was sent: an unknown field (likely a
 * typo that would reset a field on the site), an offset date, end before start, a slug with a slash.
 */
export class RequestValidationError extends CalsyncError {
  override name = 'RequestValidationError';
  readonly code = 'request-invalid';
  readonly method: string;
  readonly route: string;
  readonly issues: ValidationIssue[];

  constructor(method: string, route: string, what: string, issues: ValidationIssue[]) {
    const text = issues.map((i) => `${i.path.length ? i.path.map(String).join('.') : '(root)'}: ${i.message}`).join('; ');
    super(`${method} ${route}: invalid ${what}: ${text}`);
    this.method = method;
    this.route = route;
    this.issues = issues;
  }
}
