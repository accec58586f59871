import { linkedEndpoints, type LinkedSpec } from './linked.ts';
import { asText, isSet, isUrl, toBool, type Params } from './params.ts';
import { VENUE_FIELDS, type VenueRecord } from './records.ts';
import { renderVenue } from './shapes.ts';

/** `show_map` is declared a string: a JSON boolean is refused (a 400 on live sites). */
function showMapFlag(v: unknown): boolean {
  return toBool(v) !== false;
}

/** The site stores StateProvince from what the request names, and nothing when it names none. */
function stateProvince(params: Params): string {
  return asText(params.stateprovince) ?? asText(params.state) ?? asText(params.province) ?? '';
}

export const venueSpec: LinkedSpec<VenueRecord> = {
  kind: 'venue',
  collection: 'venues',
  nameArg: 'venue',
  fields: VENUE_FIELDS,
  invalid: (p) => {
    const bad: string[] = [];
    for (const f of ['show_map', 'show_map_link']) if (isSet(p[f]) && typeof p[f] !== 'string') bad.push(f);
    for (const f of VENUE_FIELDS) {
      if (f === 'website') continue;
      if (isSet(p[f]) && asText(p[f]) === undefined) bad.push(f);
    }
    if (isSet(p.website) && p.website !== '' && !isUrl(p.website)) bad.push('website');
    return bad;
  },
  build: (base, fields, p) => ({
    ...base,
    kind: 'venue',
    fields: { ...fields, stateprovince: stateProvince(p) },
    // New venues show the map unless told otherwise.
    showMap: isSet(p.show_map) ? showMapFlag(p.show_map) : true,
    showMapLink: isSet(p.show_map_link) ? showMapFlag(p.show_map_link) : true,
  }),
  onUpdate: (rec, p) => {
    rec.fields.stateprovince = stateProvince(p);
    rec.showMap = isSet(p.show_map) ? showMapFlag(p.show_map) : true;
    rec.showMapLink = isSet(p.show_map_link) ? showMapFlag(p.show_map_link) : true;
  },
  render: renderVenue,
};

export const venueEndpoints = linkedEndpoints(venueSpec);
