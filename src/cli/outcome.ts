import { RunFailedError } from '../runs/context.ts';
import { formatReport, RunReport, type ReportJson } from '../report/report.ts';

export interface RunLabel {
  kind: string;
  source: string;
  site: string;
  language: string;
  dryRun: boolean;
}

/** A run report as text, with where a CSV run's rejected rows went (inline and queued runs alike). */
export function reportText(report: ReportJson & { rejectsFile?: string }): string {
  return `${formatReport(report)}${report.rejectsFile ? `\n  rejected rows written to ${report.rejectsFile}` : ''}`;
}

/** A stable code for a failure: the error's own (src/errors/codes.ts, or the site's for an ApiError). */
function codeOf(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code ? code : 'error';
}

/** The report of a run that failed as a whole: the run's own up to the failure, else an empty one. */
export function failureReport(err: unknown, label: RunLabel): ReportJson {
  if (err instanceof RunFailedError && err.report) return err.report;
  const report = new RunReport({ id: 'none', ...label });
  report.failure = { code: codeOf(err), message: (err as Error)?.message ?? String(err) };
  return report.finish();
}

/**
 * Runs a command's body; with `--json`, a failure still prints one JSON report on stdout (with
 * `failure` set) before the error goes on to main (message on stderr, exit 1), so a script can
 * parse every outcome.
 */
export async function withJsonFailure<T>(json: boolean, label: () => RunLabel, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (json) process.stdout.write(`${JSON.stringify(failureReport(err, label()), null, 2)}\n`);
    throw err;
  }
}
