/**
 * Everything the tool prints. With --json stdout carries exactly one JSON
 * object (the result, or `{"error":{code,message,...}}`) and nothing else;
 * without it a person gets a short summary on stdout and errors on stderr.
 * Secrets appear only in a result, never in an error.
 */
import { isAppError } from '@platform/errors';
import { CliError, EXIT_FAILED, UpstreamError } from './cli-error';

export interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
}

export const processIo: Io = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

export function printResult<R extends object>(io: Io, json: boolean, result: R, describe: (result: R) => string): void {
  io.stdout(json ? `${JSON.stringify(result)}\n` : `${describe(result)}\n`);
}

export interface ErrorReport {
  code: string;
  message: string;
  [detail: string]: string;
}

/** What went wrong, for any thrown value; an unexpected error is reported as INTERNAL_ERROR. */
export function errorReport(error: unknown): ErrorReport {
  if (error instanceof CliError) return { code: error.code, message: error.message, ...error.details };
  if (error instanceof UpstreamError)
    return { code: error.code, message: error.describe(), upstream: error.upstream, method: error.method };
  if (isAppError(error)) return { code: error.code, message: error.partnerMessage };
  return { code: 'INTERNAL_ERROR', message: `unexpected error: ${(error as Error)?.message ?? String(error)}` };
}

/** Prints the failure and returns the exit status. */
export function printError(io: Io, json: boolean, error: unknown): number {
  const report = errorReport(error);
  if (json) io.stdout(`${JSON.stringify({ error: report })}\n`);
  else io.stderr(`error: ${report.code}: ${report.message}\n`);
  return error instanceof CliError ? error.exitCode : EXIT_FAILED;
}

/** Left-aligned "label: value" lines, for readable summaries. */
export function labelled(rows: Array<[string, string]>): string {
  const width = Math.max(...rows.map(([label]) => label.length)) + 1;
  return rows.map(([label, value]) => `  ${`${label}:`.padEnd(width + 1)}${value}`).join('\n');
}
