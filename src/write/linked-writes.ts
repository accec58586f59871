import type { CalendarClient, CallOptions, OrganizerRecord, VenueRecord } from '../api/index.ts';
import type { OrganizerBody, VenueBody } from './body.ts';

/** A venue or organizer write body. */
export type LinkedBody = VenueBody | OrganizerBody;

/*
 * The resource follows from the body (a venue body names a `venue`), so a body can only go to
 * the route whose schema it was built from, and the write stays typed without a cast.
 */

export type LinkedRecord = VenueRecord | OrganizerRecord;

export type LinkedKind = 'venues' | 'organizers';

/** The routes of a kind of linked record. */
export function linkedRoute(client: CalendarClient, kind: LinkedKind): CalendarClient['venues'] | CalendarClient['organizers'] {
  return kind === 'venues' ? client.venues : client.organizers;
}

/** A linked record's name field, which is also how its kind reads in a message: `venue`, `organizer`. */
export function linkedNoun(kind: LinkedKind): 'venue' | 'organizer' {
  return kind === 'venues' ? 'venue' : 'organizer';
}

/**
 * `verify` finds the record after a failure that may or may not have landed (the executor's one
 * retry policy calls it); it looks in the same resource the body goes to, so what it finds is
 * that resource's record.
 */
export function createLinked(client: CalendarClient, body: LinkedBody, opts: CallOptions & { verify?: (signal: AbortSignal) => Promise<LinkedRecord | null> } = {}): Promise<LinkedRecord> {
  const { verify, ...call } = opts;
  return 'venue' in body
    ? client.venues.create(body, { ...call, verify: verify as ((signal: AbortSignal) => Promise<VenueRecord | null>) | undefined })
    : client.organizers.create(body, { ...call, verify: verify as ((signal: AbortSignal) => Promise<OrganizerRecord | null>) | undefined });
}

export function updateLinked(client: CalendarClient, id: number, body: LinkedBody, opts?: CallOptions): Promise<LinkedRecord> {
  return 'venue' in body ? client.venues.update(id, body, opts) : client.organizers.update(id, body, opts);
}
