import type { Executor } from '../executor.ts';
import { OrganizerListQuery } from '../schemas/lists.ts';
import { OrganizerCreate, OrganizerRecord, OrganizerUpdate } from '../schemas/organizers.ts';
import { SluggedResource } from './slugged.ts';

/** `/organizers`; identical organizers are de-duplicated on create like venues. */
export class OrganizersResource extends SluggedResource<OrganizerRecord, OrganizerCreate, OrganizerUpdate, OrganizerUpdate, OrganizerListQuery> {
  constructor(exec: Executor) {
    super(exec, {
      name: 'organizers',
      record: OrganizerRecord,
      create: OrganizerCreate,
      update: OrganizerUpdate,
      updateById: OrganizerUpdate,
      listQuery: OrganizerListQuery,
      slugInUpdateBody: true,
    });
  }
}
