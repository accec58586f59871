import { describe, expect, it } from 'vitest';
import { EVENT_FIELDS, FIELDS, ORGANIZER_FIELDS, REQUIRED, VENUE_FIELDS, type EventField } from '../../src/sources/csv/fields.ts';
import { autoField, targetField } from '../../src/sources/csv/headers.ts';
import { makeRowContext, Row } from '../../src/sources/csv/row.ts';
import type { CsvKind } from '../../src/sources/csv/types.ts';

describe('typed field names', () => {
  it('every canonical field is a mapping target and the header of its own column, per kind', () => {
    for (const kind of Object.keys(FIELDS) as CsvKind[]) {
      for (const field of FIELDS[kind]) {
        expect(targetField(kind, field), `${kind}.${field}`).toBe(field);
        expect(autoField(kind, field), `${kind}.${field}`).toBe(field);
      }
      for (const field of REQUIRED[kind]) expect(FIELDS[kind] as readonly string[]).toContain(field);
    }
    expect(FIELDS).toEqual({ events: EVENT_FIELDS, venues: VENUE_FIELDS, organizers: ORGANIZER_FIELDS });
  });

  it('a row reads its cells by field name and labels problems with the column as written', () => {
    const ctx = makeRowContext({
      kind: 'events', sourceName: 'f.csv', fields: ['title', null, 'all_day'], labels: ['Event Name', 'Notes', 'All Day?'],
      width: 3, widthFrom: 'header', defaultTimezone: 'UTC', delimiter: ',',
    });
    const row = new Row<EventField>(ctx, [' Jazz ', 'x', 'perhaps']);
    expect(row.get('title')).toBe('Jazz');
    expect(row.get('venue')).toBe('');
    expect(row.bool('all_day')).toBeUndefined();
    expect(row.errors).toEqual([expect.stringMatching(/^All Day\?: /)]);
    // @ts-expect-error a misspelt field name is a type error (npm run typecheck fails without it)
    expect(row.get('titel')).toBe('');
  });
});
