import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EventDraft, FlatEventDraft, OrganizerDraft, VenueDraft } from '../../src/model/draft.ts';
import { checkDraft } from '../../src/sources/csv/checks.ts';
import type { CsvKind } from '../../src/sources/csv/types.ts';

// checkDraft runs a compiled copy of the draft schemas first (src/model/draft-check.ts); whatever
// it answers must be what the schema itself answers: same verdict, same output, same issues.

const SCHEMA = { events: EventDraft, venues: VenueDraft, organizers: OrganizerDraft };

function sameAsSchema(kind: CsvKind, candidate: Record<string, unknown>): void {
  const got = checkDraft(kind, structuredClone(candidate));
  const want = SCHEMA[kind].safeParse(structuredClone(candidate));
  expect(got.success, JSON.stringify(candidate)).toBe(want.success);
  if (want.success) expect(got.data).toStrictEqual(want.data);
  else expect(got.error?.issues).toStrictEqual(want.error.issues);
}

const EVENT = {
  identity: 'Jazz Night|2025-03-14 20:00:00|UTC',
  title: 'Jazz Night',
  status: 'publish',
  timezone: 'Europe/Paris',
  all_day: false,
  start_date: '2025-03-14 20:00:00',
  end_date: '2025-03-14 23:00:00',
  categories: [{ name: 'Music' }, { name: 'Family' }],
  tags: [],
  venue: { identity: 'salle pleyel', venue: 'Salle Pleyel', city: 'Paris', show_map: true },
  organizers: [{ identity: 'jazz club', organizer: 'Jazz Club', email: 'club@example.org' }],
  cancelled: false,
  origin: { source: 'events.csv', line: 2 },
};

describe('checkDraft agrees with the draft schemas', () => {
  it('accepts what a row builder makes, with the schema output (defaults filled, unknown keys dropped)', () => {
    sameAsSchema('events', EVENT);
    const { categories: _c, tags: _t, organizers: _o, cancelled: _x, ...bare } = EVENT;
    sameAsSchema('events', { ...bare, extra: 'dropped' });
    sameAsSchema('venues', { identity: 'town hall', venue: 'Town Hall', zip: '12345', geo: { lat: 1, lng: 2 } });
    sameAsSchema('organizers', { identity: 'key:7', organizer: 'Arts Council', website: 'https://example.org' });
  });

  it('refuses what the schema refuses, with its issues', () => {
    sameAsSchema('events', { ...EVENT, end_date: '2025-03-14 19:00:00' }); // the end before the start
    sameAsSchema('events', { ...EVENT, start_date: '10000-01-01 00:30:00', end_date: '10000-01-01 01:30:00' }); // a five-digit year
    sameAsSchema('events', { ...EVENT, title: '' });
    sameAsSchema('events', { ...EVENT, categories: [{ name: '' }] });
    sameAsSchema('events', { ...EVENT, venue: { identity: 'x', venue: '' } });
    sameAsSchema('venues', { identity: '', venue: 'Town Hall' });
    sameAsSchema('organizers', { identity: 'arts council', organizer: 'Arts Council', email: 7 });
  });

  it('keeps what only the full schema accepts: a term whose parent is a term, a term with a key the schema drops', () => {
    sameAsSchema('events', { ...EVENT, categories: [{ name: 'Jazz', parent: { name: 'Music', parent: 'Arts' } }] });
    sameAsSchema('events', { ...EVENT, tags: [{ name: 'late', colour: 'blue' }] });
    const r = checkDraft('events', { ...EVENT, categories: [{ name: 'Jazz', parent: { name: 'Music' } }] });
    expect(r.success && (r.data as EventDraft).categories).toStrictEqual([{ name: 'Jazz', parent: { name: 'Music' } }]);
  });
});

describe('the compiled fast path', () => {
  it('is compiled, not silently left to the runtime parser (a cycle in a schema makes z.compile give up)', () => {
    for (const schema of [FlatEventDraft, VenueDraft, OrganizerDraft]) expect(() => z.compile(schema, { strict: true })).not.toThrow();
  });
});
