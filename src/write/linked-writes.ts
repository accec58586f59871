import type { CalendarClient, CallOptions, OrganizerRecord, VenueRecord } from '../api/index.ts';
import type { OrganizerBody, VenueBody } from './body.ts';

/** A venue or organizer write body. */
export type LinkedBody = VenueBody | OrganizerBody;

/*
 * The resource follows from the body (a venue body names a `venue`), so a body can only go to
 * the route whose schema it was built from, and the write stays typed without a cast.
 */

export function createLinked(client: CalendarClient, body: LinkedBody, opts?: CallOptions): Promise<VenueRecord | OrganizerRecord> {
  return 'venue' in body ? client.venues.create(body, opts) : client.organizers.create(body, opts);
}

export function updateLinked(client: CalendarClient, id: number, body: LinkedBody, opts?: CallOptions): Promise<VenueRecord | OrganizerRecord> {
  return 'venue' in body ? client.venues.update(id, body, opts) : client.organizers.update(id, body, opts);
}
