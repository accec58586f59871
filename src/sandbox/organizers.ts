import { linkedEndpoints, type LinkedSpec } from './linked.ts';
import { asText, isEmail, isSet, isUrl } from './params.ts';
import { ORGANIZER_FIELDS, type OrganizerRecord } from './records.ts';
import { renderOrganizer } from './shapes.ts';

export const organizerSpec: LinkedSpec<OrganizerRecord> = {
  kind: 'organizer',
  collection: 'organizers',
  nameArg: 'organizer',
  fields: ORGANIZER_FIELDS,
  invalid: (p) => {
    const bad: string[] = [];
    if (isSet(p.phone) && asText(p.phone) === undefined) bad.push('phone');
    if (isSet(p.website) && p.website !== '' && !isUrl(p.website)) bad.push('website');
    if (isSet(p.email) && p.email !== '' && !isEmail(p.email)) bad.push('email');
    return bad;
  },
  build: (base, fields) => ({ ...base, kind: 'organizer', fields }),
  onUpdate: () => {},
  render: renderOrganizer,
};

export const organizerEndpoints = linkedEndpoints(organizerSpec);
