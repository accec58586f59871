import { ApiError } from './api-error.ts';
import { isNotFound } from './not-found-error.ts';

/**
 * Codes with which the site answers for a record that sits in the trash: a GET of a trashed
 * event (`event-no-longer-available`, `event-not-accessible` before 6.17.2), of a trashed
 * venue/organizer (`*-not-accessible`), and a second DELETE (410 `*-is-in-trash`).
 */
const TRASHED_403 = new Set(['event-no-longer-available', 'event-not-accessible', 'venue-not-accessible', 'organizer-not-accessible']);

/**
 * Whether an error says the addressed record is no longer on the site:
 *  - `trashed`: it is in the trash (deleted on the site on purpose: not to be re-created);
 *  - `deleted`: the site does not know it at all (NotFoundError: deleted for good, or never there);
 *  - undefined: anything else. In particular a 403 that is a refusal (`rest_forbidden`,
 *    `rest_cannot_delete`, a password, a proxy's HTML 403) says nothing about the record.
 */
export function goneAs(err: unknown): 'trashed' | 'deleted' | undefined {
  if (!(err instanceof ApiError)) return undefined;
  if (err.status === 410 || (err.status === 403 && TRASHED_403.has(err.code))) return 'trashed';
  return isNotFound(err) ? 'deleted' : undefined;
}

/** The record is gone from the site, trashed or deleted (see goneAs). */
export function isGone(err: unknown): boolean {
  return goneAs(err) !== undefined;
}
