import { describe, expect, it } from 'vitest';
import { cleanOrganizer, cleanVenue } from '../../src/model/clean.ts';

// Venues and organizers are cleaned by one function over a field table (src/model/clean.ts).
describe('cleanVenue / cleanOrganizer', () => {
  it('cleans each venue field by its kind: HTML description, plain text, web link', () => {
    const v = cleanVenue({ identity: 'x', venue: '<b>Hall</b> A', description: '<p>Nice<script>x()</script></p>', city: '<i>Paris</i>', zip: '  75001 ', website: 'javascript:alert(1)', image: '<b>kept as is</b>' });
    expect(v).toEqual({ identity: 'x', venue: 'Hall A', description: '<p>Nice</p>', city: 'Paris', zip: '75001', image: '<b>kept as is</b>' });
  });

  it('cleans each organizer field by its kind and omits what comes out empty', () => {
    const o = cleanOrganizer({ identity: 'y', organizer: 'Jo &amp; Co', email: ' <b></b> ', phone: '<span>+33 1</span>', website: 'https://example.org/' });
    expect(o).toEqual({ identity: 'y', organizer: 'Jo & Co', phone: '+33 1', website: 'https://example.org/' });
  });

  it('a name that was nothing but markup drops the record; fields never given stay absent', () => {
    expect(cleanVenue({ identity: 'x', venue: '<br/>' })).toBeUndefined();
    expect(cleanOrganizer({ identity: 'y', organizer: '<p></p>' })).toBeUndefined();
    expect(cleanOrganizer(undefined)).toBeUndefined();
    expect(Object.keys(cleanVenue({ identity: 'x', venue: 'V' })!)).toEqual(['identity', 'venue']);
  });
});
