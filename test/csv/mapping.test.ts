import { describe, expect, it } from 'vitest';
import { autoField, normalizeHeader } from '../../src/sources/csv/headers.ts';
import { inspectCsv } from '../../src/sources/csv/index.ts';
import { bytesOpen, collect, draftAt, failureAt, opts, refusal, type OrganizerDraft, type VenueDraft } from './helpers.ts';

describe('automatic header mapping', () => {
  it('is case-, punctuation- and spacing-insensitive', () => {
    expect(normalizeHeader('  Event Start-Date? ')).toBe('eventstartdate');
    for (const h of ['Event Start Date', 'EVENT START DATE', 'event_start_date', 'Event-Start-Date?', 'start_date', 'Start Date']) {
      expect(autoField('events', h), h).toBe('start_date');
    }
  });

  it("knows The Events Calendar's import columns", () => {
    const tec: Record<string, string> = {
      'Event Name': 'title', 'Event Description': 'description', 'Event Excerpt': 'excerpt', 'Event Start Date': 'start_date',
      'Event Start Time': 'start_time', 'Event End Date': 'end_date', 'Event End Time': 'end_time', 'Event Time Zone': 'timezone',
      'All Day Event': 'all_day', 'Hide from Event Listings': 'hide_from_listings', 'Sticky in Month View': 'sticky',
      'Event Featured': 'featured', 'Event Venue Name': 'venue', 'Event Organizer Name': 'organizer', 'Event Show Map': 'show_map',
      'Event Show Map Link': 'show_map_link', 'Event Cost': 'cost', 'Event Currency Symbol': 'currency_symbol',
      'Event Currency Position': 'currency_position', 'Event Category': 'categories', 'Event Tags': 'tags',
      'Event Website': 'website', 'Event Featured Image': 'image',
    };
    for (const [h, f] of Object.entries(tec)) expect(autoField('events', h), h).toBe(f);
    const venue: Record<string, string> = {
      'Venue Name': 'venue', 'Venue Address': 'address', 'Venue Address 2': 'address2', 'Venue City': 'city', 'Venue Country': 'country',
      'Venue State/Province': 'stateprovince', 'Venue Zip': 'zip', 'Venue Phone': 'phone', 'Venue Website': 'website',
    };
    for (const [h, f] of Object.entries(venue)) expect(autoField('venues', h), h).toBe(f);
    const organizer: Record<string, string> = { 'Organizer Name': 'organizer', 'Organizer Email': 'email', 'Organizer Phone': 'phone', 'Organizer Website': 'website' };
    for (const [h, f] of Object.entries(organizer)) expect(autoField('organizers', h), h).toBe(f);
    // Venue/organizer columns on an event file describe the event's venue/organizer.
    expect(autoField('events', 'Venue City')).toBe('venue_city');
    expect(autoField('events', 'Organizer Email')).toBe('organizer_email');
  });

  it("knows Google Calendar's and Outlook's CSV columns", async () => {
    const google = 'Subject,Start Date,Start Time,End Date,End Time,All Day Event,Description,Location,Private\n' + 'Lunch,05/30/2024,12:00 PM,05/30/2024,1:00 PM,False,Tacos,Cafe,True\n';
    const g = await collect(bytesOpen(google), opts());
    expect(g.inspection.unmapped).toEqual([]);
    expect(draftAt(g, 2)).toMatchObject({ title: 'Lunch', start_date: '2024-05-30 12:00:00', end_date: '2024-05-30 13:00:00', description: 'Tacos', status: 'private' });
    const outlook =
      '"Subject","Start Date","Start Time","End Date","End Time","All day event","Reminder on/off","Meeting Organizer","Categories","Description","Location","Show time as","Private"\r\n' +
      '"Board","6/13/2024","9:00:00 AM","6/13/2024","10:30:00 AM","False","True","Ann Lee","Work;Board","Quarterly","Room 1","2","False"\r\n';
    const o = await collect(bytesOpen(outlook), opts());
    expect(o.inspection.unmapped).toEqual(['Reminder on/off', 'Show time as']);
    const d = draftAt(o, 2);
    expect(d).toMatchObject({ start_date: '2024-06-13 09:00:00', end_date: '2024-06-13 10:30:00', all_day: false });
    expect(d.categories).toEqual([{ name: 'Work' }, { name: 'Board' }]);
    expect(d.organizers[0]!.organizer).toBe('Ann Lee');
    expect(d.venue?.venue).toBe('Room 1');
  });
});

describe('mapping file (--map)', () => {
  const file = 'Name,When,Where,Event Name,Notes\nGala,2024-05-01 19:00,Opera,ignored title,n1\n';

  it('overrides and adds to the automatic mapping; unmapped columns are listed', async () => {
    const c = await collect(bytesOpen(file), opts({ mapping: { Name: 'title', When: 'start_date', Where: 'venue', 'Event Name': 'ignore' } }));
    expect(c.inspection.mapping).toEqual({ Name: 'title', When: 'start_date', Where: 'venue' });
    expect(c.inspection.unmapped).toEqual(['Notes']); // 'Event Name' ignored on purpose: not listed
    expect(draftAt(c, 2)).toMatchObject({ title: 'Gala', start_date: '2024-05-01 19:00:00' });
    expect(draftAt(c, 2).venue?.venue).toBe('Opera');
  });

  it('the user mapping wins over the automatic one for the same field; the loser is listed unmapped', async () => {
    const c = await collect(bytesOpen(file), opts({ mapping: { Name: 'title', When: 'start_date' } }));
    expect(c.inspection.mapping.Name).toBe('title');
    expect(c.inspection.unmapped).toContain('Event Name');
    expect(draftAt(c, 2).title).toBe('Gala');
  });

  it('accepts 1-based indexes, normalized header spellings and field spellings', async () => {
    const c = await collect(bytesOpen(file), opts({ mapping: { 1: 'Title', when: 'Start Date', '3': 'venue' } }));
    expect(c.inspection.mapping).toMatchObject({ Name: 'title', When: 'start_date', Where: 'venue' });
  });

  it('refuses a mapping to an unknown field or from a missing column', async () => {
    const bad = await refusal(inspectCsv(bytesOpen(file), opts({ mapping: { Name: 'headline' } })));
    expect(bad.reason).toBe("mapping: 'headline' is not a field for events");
    expect(bad.hint).toContain('start_date');
    const missing = await refusal(inspectCsv(bytesOpen(file), opts({ mapping: { Nmae: 'title' } })));
    expect(missing.reason).toBe("mapping: no column 'Nmae' in this file");
    expect(missing.hint).toContain('Name, When, Where');
    const index = await refusal(inspectCsv(bytesOpen(file), opts({ mapping: { 9: 'title' } })));
    expect(index.reason).toBe("mapping: no column '9' in this file");
  });

  it('a header we do not know, mapped by position, stays a header', async () => {
    const c = await collect(bytesOpen('Navn;Dato\nRitt;2014-05-10\n'), opts({ mapping: { 1: 'title', 2: 'start_date' } }));
    expect(c.inspection.headerLine).toBe(1);
    expect(c.drafts.map((d) => d.title)).toEqual(['Ritt']);
  });
});

describe('header, title row and refusals', () => {
  it('skips a one-cell title row above a recognized header', async () => {
    const c = await collect(bytesOpen('Spring programme 2024\nTitle,Start Date\nA,2024-04-01\n'), opts());
    expect(c.inspection).toMatchObject({ headerLine: 2, skippedLines: [1], rows: 1 });
    expect(draftAt(c, 3).title).toBe('A');
  });

  it('refuses an empty file, a file without a recognized header, and required fields left unmapped', async () => {
    expect((await refusal(inspectCsv(bytesOpen(''), opts()))).reason).toBe('the file is empty (no rows)');
    expect((await refusal(inspectCsv(bytesOpen('\n\n'), opts()))).reason).toBe('the file is empty (no rows)');
    const none = await refusal(inspectCsv(bytesOpen('Foo,Bar\n1,2\n'), opts()));
    expect(none.reason).toBe('no column header is recognized (line 1: Foo, Bar)');
    expect(none.hint).toContain('--map');
    const noStart = await refusal(inspectCsv(bytesOpen('Title,Where\nA,B\n'), opts()));
    expect(noStart.reason).toBe('no column maps to start_date (columns: Title, Where)');
    const headerless = await refusal(inspectCsv(bytesOpen('Concert,2024-05-01 19:00\n'), opts()));
    expect(headerless.reason).toMatch(/^the file has no header row/);
  });

  it('refuses bad options up front', async () => {
    expect((await refusal(inspectCsv(bytesOpen('Title,Start Date\n'), opts({ defaultTimezone: 'Moon/Base' })))).reason).toMatch(/default time zone/);
    expect((await refusal(inspectCsv(bytesOpen('Title,Start Date\n'), opts({ status: 'archived' })))).reason).toBe("status 'archived' is not a post status");
  });
});

describe('identity', () => {
  const rows = 'ID,Title,Start Date,Timezone\n7,A,2024-05-01 10:00,Europe/Paris\n8,A,2024-05-01 10:00,Europe/Paris\n7,B,2024-05-02 10:00,\n,C,2024-05-03 10:00,\n';

  it('without a key: title|start|zone, and a second row with the same identity is a failure naming the first', async () => {
    const c = await collect(bytesOpen(rows), opts());
    expect(draftAt(c, 2).identity).toBe('A|2024-05-01 10:00:00|Europe/Paris');
    expect(failureAt(c, 3).reason).toBe('row: duplicate of line 2 (same title, start and time zone)');
    expect(draftAt(c, 4).identity).toBe('B|2024-05-02 10:00:00|UTC');
  });

  it('with a key column: key:<value>; an empty key or a repeated key fails', async () => {
    const c = await collect(bytesOpen(rows), opts({ key: 'ID' }));
    expect(draftAt(c, 2).identity).toBe('key:7');
    expect(draftAt(c, 3).identity).toBe('key:8');
    expect(failureAt(c, 4).reason).toBe('row: duplicate of line 2 (same ID)');
    expect(failureAt(c, 5).reason).toBe('ID: is empty (the key column identifies the row)');
    const r = await refusal(inspectCsv(bytesOpen(rows), opts({ key: 'Uid' })));
    expect(r.reason).toBe("key column 'Uid' is not in this file");
  });

  it('event rows carry venue and organizer drafts by name, with the detail columns on the row', async () => {
    const file =
      'Event Name,Event Start Date,Event Venue Name,Venue Address,Venue Address 2,Venue City,Venue Zip,Event Organizer Name,Organizer Email\n' +
      'A,2024-05-01,  Town   Hall ,1 Main St,Floor 2,Springfield,01234,Arts Council,info@arts.example\n' +
      'B,2024-05-02,,,,,,"Smith, John; Jane Doe",\n' +
      'C,2024-05-03,,,,Springfield,,"Smith, John; Jane Doe",x@y.example\n';
    const c = await collect(bytesOpen(file), opts());
    expect(draftAt(c, 2).venue).toEqual({ identity: 'town hall', venue: 'Town   Hall', address: '1 Main St, Floor 2', city: 'Springfield', zip: '01234' });
    expect(draftAt(c, 2).organizers).toEqual([{ identity: 'arts council', organizer: 'Arts Council', email: 'info@arts.example' }]);
    expect(draftAt(c, 3).organizers.map((o) => o.organizer)).toEqual(['Smith, John', 'Jane Doe']);
    expect(failureAt(c, 4).reason).toBe('Venue City: is given without a venue name; Organizer Email: one value for 2 organizers');
  });
});

describe('venue and organizer files', () => {
  it('venues: TEC columns → VenueDraft, identity = normalized name or key', async () => {
    const file =
      'Venue Name,Venue Address,Venue Address 2,Venue City,Venue Country,Venue State/Province,Venue Zip,Venue Phone,Venue Website,Venue Show Map\n' +
      'Salle Pleyel,252 Rue du Faubourg Saint-Honoré,,Paris,France,Île-de-France,75008,+33 1 76 49 43 13,www.sallepleyel.com,yes\n' +
      ',no name,,,,,,,,\n' +
      'salle  pleyel,dup,,,,,,,,\n';
    const c = await collect(bytesOpen(file), opts({ kind: 'venues' }));
    expect(c.inspection.unmapped).toEqual([]);
    const v = c.drafts[0] as unknown as VenueDraft;
    expect(v).toEqual({
      identity: 'salle pleyel', venue: 'Salle Pleyel', address: '252 Rue du Faubourg Saint-Honoré', city: 'Paris', country: 'France',
      stateprovince: 'Île-de-France', zip: '75008', phone: '+33 1 76 49 43 13', website: 'http://www.sallepleyel.com', show_map: true,
    });
    expect(failureAt(c, 3)).toMatchObject({ kind: 'venue', reason: 'Venue Name: is empty (a venue name is required)' });
    expect(failureAt(c, 4).reason).toBe('row: duplicate of line 2 (same name)');
  });

  it('organizers: TEC columns → OrganizerDraft; a bad e-mail fails the row', async () => {
    const file = 'Organizer Name,Organizer Email,Organizer Phone,Organizer Website\nArts Council,mailto:info@arts.example,555-0100,https://arts.example\nBad,not-an-email,,\n';
    const c = await collect(bytesOpen(file), opts({ kind: 'organizers', status: 'draft' }));
    expect(c.drafts[0] as unknown as OrganizerDraft).toEqual({
      identity: 'arts council', organizer: 'Arts Council', email: 'info@arts.example', phone: '555-0100', website: 'https://arts.example', status: 'draft',
    });
    expect(failureAt(c, 3)).toMatchObject({ kind: 'organizer', reason: "Organizer Email: 'not-an-email' is not an e-mail address" });
  });
});
