import type { Command } from 'commander';
import { startSandbox, describeSandbox } from '../../sandbox/index.ts';
import { floatOption, intOption } from '../options.ts';

export function registerSandbox(program: Command): void {
  program
    .command('sandbox')
    .description('Run the local calendar site (the REST interface of The Events Calendar, as real sites behave) for demos, tests and benchmarks')
    .option('--port <n>', 'port (0 = any free port)', intOption, 8787)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--data <file>', 'keep records in this file across restarts')
    .option('--namespace <ns>', 'REST namespace', 'calendar/events/v1')
    .option('--compat <version>', 'answer like The Events Calendar 6.17.2 (default) or 6.17.1', '6.17.2')
    .option('--site-timezone <iana>', 'the site time zone', 'UTC')
    .option('--latency-ms <n>', 'added latency per request', intOption, 0)
    .option('--latency-jitter-ms <n>', 'random extra latency up to n ms', intOption, 0)
    .option('--error-rate <0..1>', 'share of requests answered 5xx', floatOption, 0)
    .option('--throttle-rate <0..1>', 'share answered 429 with Retry-After', floatOption, 0)
    .option('--retry-after <s>', 'Retry-After seconds on 429', intOption, 1)
    .option('--drop-rate <0..1>', 'share of connections dropped without an answer', floatOption, 0)
    .option('--seed <n>', 'seed for the fault draws (reproducible runs)', intOption, 1)
    .addHelpText(
      'after',
      `
Credentials: CALSYNC_USER / CALSYNC_PASSWORD from the environment, else generated and printed.
Request counters: GET /__sandbox/stats.

Examples:
  $ calsync sandbox
  $ calsync sandbox --port 0 --data .data/sandbox.json --latency-ms 150
  $ calsync sandbox --error-rate 0.2 --throttle-rate 0.1 --drop-rate 0.05 --seed 7`,
    )
    .action(async (o: Record<string, unknown>) => {
      const sb = await startSandbox({
        port: o.port as number,
        host: o.host as string,
        dataFile: o.data as string | undefined,
        namespace: o.namespace as string,
        version: o.compat === '6.17.1' ? '6.17.1' : '6.17.2',
        siteTimezone: o.siteTimezone as string,
        latencyMs: o.latencyMs as number,
        latencyJitterMs: o.latencyJitterMs as number,
        errorRate: o.errorRate as number,
        throttleRate: o.throttleRate as number,
        retryAfterSeconds: o.retryAfter as number,
        dropRate: o.dropRate as number,
        seed: o.seed as number,
      });
      process.stdout.write(`${describeSandbox(sb)}\n`);
      const stop = async () => {
        await sb.close();
        process.exit(0);
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      await new Promise(() => undefined);
    });
}
