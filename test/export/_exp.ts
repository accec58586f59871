import { vtimezone, zoneTransitions } from '../../src/export/vtimezone.ts';
const y = (s: string) => Date.parse(s) / 1000;
const r = vtimezone('America/Vancouver', { minSec: y('2026-01-01'), maxSec: y('2027-06-01') });
console.log(r.block);
console.log(zoneTransitions('Asia/Jerusalem', y('2025-01-01'), y('2026-01-01')).map(t => [new Date(t.at*1000).toISOString(), t.from, t.to]));
const t0 = performance.now();
for (const z of ['Europe/Berlin','America/New_York','Asia/Tokyo','Europe/London']) vtimezone(z, { minSec: y('2020-01-01'), maxSec: y('2021-06-01') });
console.log(performance.now() - t0);
