import { ApiError } from './api-error.ts';

/**
 * The addressed record does not exist. The site says so in several ways that all land here:
 * 404 `rest-event-not-found` (TEC 6.17.2), 400 `rest_invalid_param` naming `slug` or `id`
 * (by-slug routes, venues/organizers/terms, TEC 6.17.1), 400 `rest-invalid-event-id` (an id of
 * another post type), and 200 with a serialized `{"errors":{"event-not-found":[…]}}` (TEC 6.17.1).
 * The original status and code are kept.
 */
export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
}

export function isNotFound(err: unknown): err is NotFoundError {
  return err instanceof NotFoundError;
}
