import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.ts';
import { CSV_DEFAULTS, CsvImportOptions, csvOptionsFromSource } from '../../src/runs/options/import-csv.ts';
import { ICS_DEFAULTS, IcsImportOptions, icsOptionsFromSource } from '../../src/runs/options/import-ics.ts';
import { SYNC_DEFAULTS, syncOptionsFromConfig } from '../../src/runs/options/sync-site.ts';
import { EXPORT_DEFAULTS } from '../../src/runs/options/export-ics.ts';

/** Options are defined once (src/runs/options/): a config entry with nothing set runs like the CLI with no flags. */
describe('run options: one default and one limit per option', () => {
  const config = parseConfig({
    sites: [{ name: 'sb', restRoot: 'http://127.0.0.1:9/wp-json' }, { name: 'sb2', restRoot: 'http://127.0.0.1:10/wp-json' }],
    sources: [
      { name: 'feed', kind: 'ics', site: 'sb', url: 'https://example.org/a.ics' },
      { name: 'rows', kind: 'csv', site: 'sb', url: 'https://example.org/a.csv' },
    ],
    syncs: [{ name: 'copy', from: 'sb', to: 'sb2' }],
    exports: [{ name: 'feed', site: 'sb' }],
  });
  const [ics, csv] = config.sources;

  it('a bare config source gets the same options as the CLI with no flags', () => {
    const { location: _l, site: _s, source: _src, ...fromConfig } = icsOptionsFromSource(ics as never);
    const { location: _l2, site: _s2, ...cli } = ICS_DEFAULTS;
    expect(fromConfig).toEqual(cli);
    const { location: _l3, site: _s3, source: _src3, ...csvFromConfig } = csvOptionsFromSource(csv as never);
    const { location: _l4, site: _s4, ...csvCli } = CSV_DEFAULTS;
    expect(csvFromConfig).toEqual(csvCli);
  });

  it('a bare config sync and export get the CLI\'s defaults (a config sync without languages takes all)', () => {
    const sync = syncOptionsFromConfig(config.syncs[0]!);
    expect({ ...sync, langs: SYNC_DEFAULTS.langs, from: '-', to: '-' }).toEqual(SYNC_DEFAULTS);
    expect(sync.langs).toBe('all');
    const { schedule: _schedule, ...exp } = config.exports[0]!;
    expect({ ...exp, name: 'events', site: '-' }).toEqual(EXPORT_DEFAULTS);
  });

  it('the limits are the same in the config and on the CLI/queue', () => {
    const source = (extra: object) => () => parseConfig({ sites: [{ name: 'sb', restRoot: 'http://127.0.0.1:9/wp-json' }], sources: [{ name: 'x', site: 'sb', url: 'https://example.org/x', ...extra }] });
    // Horizon: at most ten years everywhere.
    expect(source({ kind: 'ics', horizonDays: 3661 })).toThrow();
    expect(IcsImportOptions.safeParse({ location: 'x', site: 'y', horizonDays: 3661 }).success).toBe(false);
    expect(IcsImportOptions.safeParse({ location: 'x', site: 'y', horizonDays: 3660 }).success).toBe(true);
    // Chunk size: one row upwards everywhere.
    expect(source({ kind: 'csv', chunkSize: 5 })).not.toThrow();
    expect(CsvImportOptions.safeParse({ location: 'x', site: 'y', chunkSize: 10_001 }).success).toBe(false);
    expect(source({ kind: 'csv', chunkSize: 10_001 })).toThrow();
  });
});
