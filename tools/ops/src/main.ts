#!/usr/bin/env node
/**
 * The operator CLI: `npm run -s ops -- <noun> <verb> [flags] [--json]`.
 * Parses the command line, validates the flags, dispatches to the command and
 * prints its result. Talks to the services' internal gRPC only, never to the
 * partner gateway. Exit status: 0 done, 1 failed, 2 invoked wrongly.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createLogger, RequestContext, runWithContext } from '@platform/logger';
import { CliError, EXIT_OK, EXIT_USAGE, usageError } from './cli-error';
import { GrpcOpsClients, OpsClients } from './clients';
import type { AnyCommand } from './commands/command';
import { COMMANDS, findCommand } from './commands';
import type { FlagValues } from './flags';
import { Io, printError, printResult, processIo } from './output';

const GLOBAL_OPTIONS = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;
const GLOBAL_FLAGS = new Set(['--json', '--help', '-h']);
const GLOBAL_FLAG_HELP: Array<[string, string]> = [
  ['--json', 'print exactly one JSON object on stdout: the result, or {"error":{"code","message"}}'],
  ['--help, -h', 'show this text'],
];

export interface CliDependencies {
  io: Io;
  /** Called only once a command's flags are valid; closeAll() runs when the command ends. */
  makeClients: () => OpsClients & { closeAll(): void };
  /**
   * What every call of the command carries to the services: one request id for
   * the whole command, and the operator's name, which their audit records keep.
   */
  requestContext?: () => RequestContext;
}

/** What the operator name may look like (a login name or an e-mail address); the services apply the same rule. */
const OPERATOR_NAME = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$/;

/**
 * The operator's name for the audit trail: OPS_OPERATOR, else the login name.
 * A label beside the authenticated identity (the certificate's `ops`), not a
 * credential. A name that is not plain is a configuration error, never sent.
 */
export function operatorName(env: NodeJS.ProcessEnv, loginName: () => string): string | undefined {
  const configured = env.OPS_OPERATOR?.trim();
  if (configured) {
    if (!OPERATOR_NAME.test(configured))
      throw new CliError(
        'CONFIGURATION_ERROR',
        'OPS_OPERATOR must be 1 to 64 of letters, digits and . _ @ + - (a login name or an e-mail address)',
      );
    return configured;
  }
  try {
    const login = loginName();
    return OPERATOR_NAME.test(login) ? login : undefined;
  } catch {
    return undefined;
  }
}

/** Aligned `  --flag   help` lines. */
function flagLines(rows: Array<[string, string]>): string[] {
  const width = Math.max(...rows.map(([flag]) => flag.length)) + 2;
  return rows.map(([flag, help]) => `  ${flag.padEnd(width)}${help}`);
}

/** A command's own help: its synopsis, what it does, and every flag it takes with the value and the rule. */
function commandUsage(command: AnyCommand): string {
  const flags = Object.entries(command.flags).map(([name, spec]): [string, string] => [`--${name}`, spec.help]);
  const synopsis = [command.name, command.synopsis, '[--json]'].filter(Boolean).join(' ');
  return [
    `Usage: npm run -s ops -- ${synopsis}`,
    '',
    command.summary,
    '',
    'Flags:',
    ...flagLines([...flags, ...GLOBAL_FLAG_HELP]),
    '',
    'Exit status: 0 done, 1 failed, 2 unknown command or flag.',
    '',
  ].join('\n');
}

export function usageText(command?: AnyCommand): string {
  if (command) return commandUsage(command);
  const width = Math.max(...COMMANDS.map((known) => known.name.length)) + 2;
  const lines = COMMANDS.flatMap((known) => [
    `  ${known.name.padEnd(width)}${known.synopsis}`,
    `  ${''.padEnd(width)}${known.summary}`,
  ]);
  return [
    'Usage: npm run -s ops -- <command> [flags] [--json]',
    '',
    'Commands:',
    ...lines,
    '',
    ...flagLines([
      ...GLOBAL_FLAG_HELP,
      ['<command> --help', "a command's own help: every flag it takes, its value and its rule"],
    ]),
    '',
    'Service addresses: <SERVICE>_GRPC_ADDR (e.g. LEDGER_GRPC_ADDR), else the stack file',
    'OPS_STACK_FILE (default .stack/stack.json, written by `npm start`).',
    'Audit: each command sends one request id and the operator name (OPS_OPERATOR, else the',
    "login name) with its calls; the services' audit trails keep both (`audit list`).",
    'Exit status: 0 done, 1 failed, 2 unknown command or flag.',
    '',
  ].join('\n');
}

interface Selection {
  command: AnyCommand | undefined;
  flags: string[];
  help: boolean;
}

/** Finds "<noun> <verb>"; global flags may come before it. */
function selectCommand(argv: string[]): Selection {
  let start = 0;
  while (start < argv.length && GLOBAL_FLAGS.has(argv[start])) start += 1;
  const help = argv.slice(0, start).some((arg) => arg !== '--json');
  const [noun, verb] = argv.slice(start, start + 2).map((word) => (word.startsWith('-') ? undefined : word));
  if (noun === undefined || noun === 'help') {
    if (help || noun === 'help') return { command: undefined, flags: [], help: true };
    throw usageError('no command given');
  }
  const command = findCommand(noun, verb);
  if (!command) throw usageError(`unknown command "${[noun, verb].filter(Boolean).join(' ')}"`);
  return { command, flags: argv.slice(start + 2), help };
}

function parseFlags(command: AnyCommand, flags: string[]): FlagValues {
  try {
    const options = Object.fromEntries(
      Object.entries(command.flags).map(([name, spec]) => [name, { type: spec.type }]),
    );
    const { values } = parseArgs({
      args: flags,
      options: { ...options, ...GLOBAL_OPTIONS },
      strict: true,
      allowPositionals: false,
    });
    return values as FlagValues;
  } catch (error) {
    throw usageError(`${command.name}: ${(error as Error).message}`);
  }
}

export async function runCli(argv: string[], deps: CliDependencies): Promise<number> {
  const { io } = deps;
  const json = argv.includes('--json');
  let command: AnyCommand | undefined;
  try {
    const selection = selectCommand(argv);
    const selected = selection.command;
    command = selected;
    const values = selected ? parseFlags(selected, selection.flags) : {};
    if (!selected || selection.help || values.help === true) {
      io.stdout(usageText(selected));
      return EXIT_OK;
    }
    const input = selected.parse(values);
    const context = deps.requestContext?.() ?? {};
    const clients = deps.makeClients();
    try {
      const result = await runWithContext(context, () => selected.run(input, clients));
      printResult(io, json, result, selected.describe);
      return selected.exitStatus?.(result) ?? EXIT_OK;
    } finally {
      clients.closeAll();
    }
  } catch (error) {
    if (error instanceof CliError && error.exitCode === EXIT_USAGE) io.stderr(usageText(command));
    return printError(io, json, error);
  }
}

if (require.main === module) {
  const repoRoot = resolve(__dirname, '..', '..', '..');
  // The tool reports failures itself; the shared logger writes to stdout, which --json keeps for one object.
  const logger = createLogger('ops', 'error');
  logger.silent = true;
  const sources = { env: process.env, repoRoot, readFile: (path: string) => readFileSync(path, 'utf8') };
  const requestContext = () => ({
    requestId: randomUUID(),
    operator: operatorName(process.env, () => userInfo().username),
  });
  void runCli(process.argv.slice(2), {
    io: processIo,
    makeClients: () => new GrpcOpsClients(sources, logger),
    requestContext,
  }).then((status) => {
    process.exitCode = status;
  });
}
