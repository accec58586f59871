import type { Executor } from '../executor.ts';
import { VenueListQuery } from '../schemas/lists.ts';
import { VenueCreate, VenueRecord, VenueUpdate } from '../schemas/venues.ts';
import { SluggedResource } from './slugged.ts';

/**
 * `/venues`. The site de-duplicates identical venues on create (the existing id comes back,
 * still 201), which surfaces here as a SlugMismatchError carrying that venue.
 */
export class VenuesResource extends SluggedResource<VenueRecord, VenueCreate, VenueUpdate, VenueUpdate, VenueListQuery> {
  constructor(exec: Executor) {
    super(exec, {
      name: 'venues',
      record: VenueRecord,
      create: VenueCreate,
      update: VenueUpdate,
      updateById: VenueUpdate,
      listQuery: VenueListQuery,
      slugInUpdateBody: true,
    });
  }
}
