import { describe, expect, it } from 'vitest';
import { inspectCsv } from '../../src/sources/csv/index.ts';
import { bytesOpen, opts } from '../csv/helpers.ts';

/**
 * Found onboarding a CSV with `--key "Event ID"`: every run warned "columns not mapped to any field
 * (ignored): Event ID; map them with --map", although that column was the events' identity and was
 * used as such (a retitled row updated its event in place). The key column is used, not ignored.
 */
describe('regression: the --key column was reported as an ignored, unmapped column', () => {
  const csv = 'Event ID,Event Name,Event Start Date,Notes\nev-1,Talk,2027-03-01 19:00,x\nev-2,Walk,2027-03-02 10:00,y\n';

  it('the key column is not listed as unmapped; a truly unused column still is', async () => {
    const inspection = await inspectCsv(bytesOpen(csv), opts({ key: 'Event ID' }));
    expect(inspection.unmapped).toEqual(['Notes']);
  });

  it('named by position or by a loose spelling, the key column is still not listed', async () => {
    expect((await inspectCsv(bytesOpen(csv), opts({ key: '1' }))).unmapped).toEqual(['Notes']);
    expect((await inspectCsv(bytesOpen(csv), opts({ key: 'event_id' }))).unmapped).toEqual(['Notes']);
  });

  it('without --key the column is unused and listed, as before', async () => {
    expect((await inspectCsv(bytesOpen(csv), opts())).unmapped).toEqual(['Event ID', 'Notes']);
  });
});
