import { describe, expect, it } from 'vitest';
import type { EventRecord } from '../../src/api/index.ts';
import { plainText, plainTitle, renderIcs } from '../../src/export/index.ts';
import { parseEvents } from './support.ts';

/**
 * Regression: the export's plain text (DESCRIPTION, and titles with markup) went through
 * html-to-text, which converts only the inside of `<body>` when the HTML has one. A description
 * holding a `<body>` tag (pasted from a web page or an e-mail) lost every word before and after it.
 */
describe('regression: html-to-text dropped the text around a <body> tag', () => {
  it.each([
    ['Before <body>inside</body> after', 'Before inside after'],
    ['<p>Doors at 7.</p><body><p>Programme</p></body><p>Tickets at the door.</p>', 'Doors at 7.\n\nProgramme\n\nTickets at the door.'],
    ['Text<body>', 'Text'],
  ])('plainText(%j) keeps all text', (html, expected) => {
    expect(plainText(html)).toBe(expected);
  });

  it('a title with a <body> tag keeps all text', () => {
    expect(plainTitle('Jazz <body>night</body> live')).toBe('Jazz night live');
  });

  it('the exported DESCRIPTION holds the text before the <body> tag', () => {
    const rec = {
      id: 7, status: 'publish', slug: 'body-text', title: 'Body text', start_date: '2025-01-01 10:00:00', end_date: '2025-01-01 11:00:00', timezone: 'UTC',
      categories: [], tags: [], venue: [], organizer: [],
      description: '<p>Meet at the north gate.</p><body><p>Walk along the river.</p></body>',
    } as unknown as EventRecord;
    const [event] = [...parseEvents(renderIcs([rec], { name: 'x', lang: 'en', siteHost: 'h' })).values()];
    const description = String(event?.description);
    expect(description).toContain('Meet at the north gate.');
    expect(description).toContain('Walk along the river.');
  });

  it('a description without <body> converts as before', () => {
    expect(plainText('<h2>Programme</h2><p>One</p><ul><li>a</li></ul>')).toBe('Programme\n\nOne\n\n * a');
  });
});
