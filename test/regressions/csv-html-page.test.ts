import { describe, expect, it } from 'vitest';
import { inspectCsv } from '../../src/sources/csv/index.ts';
import { bytesOpen, opts, refusal } from '../csv/helpers.ts';

/** Found running calsync as a service: a CSV source whose URL served a web page. */
describe('regression: a CSV source serving an HTML page was told "no column header is recognized … --map"', () => {
  const pages = {
    'a login page': '<!DOCTYPE html>\n<html lang="en"><head><title>Sign in</title></head>\n<body><form>…</form></body></html>\n',
    'an error page with a comment first': '<!-- served by nginx -->\n<html>\n<head><title>404 Not Found</title></head>\n<body><h1>404 Not Found</h1></body>\n</html>\n',
    'a page opening with a BOM and blank lines': '\uFEFF\n\n<html><body><p>Download the events, as a spreadsheet</p></body></html>\n',
  };
  it.each(Object.entries(pages))('%s is refused as a web page, naming the file and what to check', async (_name, page) => {
    const r = await refusal(inspectCsv(bytesOpen(page), opts({ sourceName: 'https://data.example.org/events.csv' })));
    expect(r.file).toBe('https://data.example.org/events.csv');
    expect(r.reason).toBe('this is a web page (HTML), not a CSV file');
    expect(r.hint).toMatch(/check the URL/);
  });

  it('a CSV whose cells hold HTML is still a CSV', async () => {
    const csv = 'Event Name,Event Start Date,Event Description\n"Talk",2027-03-01 19:00,"<p>With <b>slides</b></p>"\n';
    const inspection = await inspectCsv(bytesOpen(csv), opts());
    expect(inspection.headers).toEqual(['Event Name', 'Event Start Date', 'Event Description']);
  });
});
