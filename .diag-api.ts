import { startSandbox } from './src/sandbox/index.ts';
import { CalendarClient } from './src/api/index.ts';
for (const conc of [1, 4]) {
  for (const seed of [7, 8, 9]) {
    const sb = await startSandbox({ port: 0, seed, throttleRate: 0.3, retryAfterSeconds: 1 });
    const c = new CalendarClient({ restRoot: sb.url, namespace: sb.namespace, auth: { kind: 'basic', user: sb.user, password: sb.password }, retry: { minDelayMs: 10, maxDelayMs: 200, maxRetries: 8 } });
    let next = 0;
    await Promise.all(Array.from({ length: conc }, async () => { while (next < 12) { const i = next++; await c.events.upsertBySlug(`s-${i}`, { title: `t ${i}`, start_date: '2031-01-01 10:00:00', end_date: '2031-01-01 11:00:00' }); } }));
    console.log(conc, seed, c.stats(), sb.stats().retryAfterViolations, sb.stats().faults);
    await c.close(); await sb.close();
  }
}
