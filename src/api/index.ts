/**
 * The typed REST client of the calendar interface (the routes src/sandbox/ serves; test/contract/ checks them on a real site): one method per route,
 * paging iterators, upsert by slug, retries that never duplicate a create, typed errors.
 */
export { CalendarClient, type RawRequest } from './client.ts';
export type { SiteConnection, CallOptions, Page, RequestInfo } from './connection.ts';
export { DEFAULT_NAMESPACE } from './connection.ts';
export type { ClientStats } from './executor.ts';
export type { IterateOptions } from './paging.ts';
export { EventsResource, type EventRecordOptions } from './resources/events.ts';
export { VenuesResource } from './resources/venues.ts';
export { OrganizersResource } from './resources/organizers.ts';
export { TermsResource } from './resources/terms.ts';
export { SluggedResource } from './resources/slugged.ts';
export * from './errors/index.ts';
export * from './schemas/events.ts';
export * from './schemas/venues.ts';
export * from './schemas/organizers.ts';
export * from './schemas/terms.ts';
export * from './schemas/lists.ts';
export { WallTime, QueryDate, Slug, DateDetails, Image } from './schemas/common.ts';
export { WpErrorBody } from './schemas/errors.ts';
export { backoffDelay } from './retry.ts';
export { parseRetryAfter } from '../util/retry-after.ts';
export { CircuitBreaker, DEFAULT_BREAKER_THRESHOLD } from './breaker.ts';
export { preflight, type SiteFacts, type PreflightOptions } from './preflight.ts';
