import { CalsyncError } from '../../errors/calsync-error.ts';

/**
 * A create came back with another slug than the one sent: WordPress made it unique (`-2`) because
 * the slug is taken (a concurrent writer, or a record this client cannot see), or the site ignores
 * `slug` on this resource. The record was created; it is attached so the caller can adopt,
 * rename or delete it.
 */
export class SlugMismatchError extends CalsyncError {
  override name = 'SlugMismatchError';
  readonly code = 'slug-mismatch';
  readonly expected: string;
  readonly actual: string;
  readonly record: unknown;
  readonly resource: string;

  constructor(resource: string, expected: string, actual: string, record: unknown) {
    super(`${resource}: created with slug "${actual}" instead of "${expected}"`);
    this.resource = resource;
    this.expected = expected;
    this.actual = actual;
    this.record = record;
  }

  toJSON(): Record<string, unknown> {
    return { name: this.name, message: this.message, resource: this.resource, expected: this.expected, actual: this.actual };
  }
}
