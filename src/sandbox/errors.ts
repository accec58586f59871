/**
 * Error bodies as WordPress renders a WP_Error: `{code, message, data: {status, …}}`.
 * Handlers throw these; the router turns them into responses.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly data: Record<string, unknown>;
  readonly extra: Record<string, unknown>;

  constructor(status: number, code: string, message: string, data: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.data = data;
    this.extra = extra;
  }

  body(): Record<string, unknown> {
    return { code: this.code, message: this.message, data: { status: this.status, ...this.data }, ...this.extra };
  }
}

export const noRoute = (): ApiError =>
  new ApiError(404, 'rest_no_route', 'No route was found matching the URL and request method.');

/** `params` is an OBJECT here (name → message), unlike the missing-parameter error. */
export function invalidParams(names: string[], details: Record<string, unknown> = {}): ApiError {
  const params: Record<string, string> = {};
  for (const n of names) params[n] = 'Invalid parameter.';
  return new ApiError(400, 'rest_invalid_param', `Invalid parameter(s): ${names.join(', ')}`, {
    params,
    details: Object.keys(details).length ? details : [],
  });
}

/** `params` is an ARRAY of names here. */
export function missingParams(names: string[]): ApiError {
  return new ApiError(400, 'rest_missing_callback_param', `Missing parameter(s): ${names.join(', ')}`, { params: names });
}

export const forbidden = (): ApiError => new ApiError(401, 'rest_forbidden', 'Sorry, you are not allowed to do that.');

export const invalidJson = (detail: string): ApiError =>
  new ApiError(400, 'rest_invalid_json', 'Invalid JSON body passed.', { json_error_code: 4, json_error_message: detail });

export const eventNotFound = (id: number): ApiError =>
  new ApiError(404, 'rest-event-not-found', `Event with ID ${id} does not exist.`);

export const archivePageNotFound = (kind: 'event' | 'venue' | 'organizer'): ApiError =>
  new ApiError(404, `${kind}-archive-page-not-found`, `The requested ${kind} archive page does not exist`);

export const notAccessible = (kind: 'event' | 'venue' | 'organizer'): ApiError =>
  new ApiError(403, `${kind}-not-accessible`, `The requested ${kind} is not accessible`);

export const inTrash = (kind: 'event' | 'venue' | 'organizer'): ApiError =>
  new ApiError(410, `${kind}-is-in-trash`, `The ${kind} is already trashed`);

export const couldNotCreate = (kind: 'venue' | 'organizer'): ApiError =>
  new ApiError(400, `could-not-create-${kind}`, `The ${kind} could not be created from the provided data`);
