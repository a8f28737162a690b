/**
 * The shape of one operator command: its flags, how they are validated into
 * an input, what it calls, and how its result reads to a person. `main.ts`
 * parses the command line and dispatches; commands never print.
 */
import type { OpsClients } from '../clients';
import type { FlagValues } from '../flags';

/** One flag: a value (`--partner ID`) or a switch (`--dead`), and what `--help` says of it: the value it takes and its rule. */
export interface FlagSpec {
  type: 'string' | 'boolean';
  help: string;
}
export type FlagSpecs = Record<string, FlagSpec>;

/** A flag taking a value. */
export const valueFlag = (help: string): FlagSpec => ({ type: 'string', help });
/** A flag without a value. */
export const switchFlag = (help: string): FlagSpec => ({ type: 'boolean', help });
/** The flag every command with a partner takes. */
export const PARTNER_FLAG = valueFlag("ID: the partner's id, a UUID (required)");

export interface Command<Input, Result extends object> {
  /** The words that select it, e.g. "partner create". */
  name: string;
  /** One line: the flags it takes, for the usage text. */
  synopsis: string;
  summary: string;
  /** Every flag it takes, with its help: the command line is parsed from these, so `--help` lists exactly what is accepted. */
  flags: FlagSpecs;
  /** Validates the flags; throws VALIDATION_FAILED naming every bad one. Pure. */
  parse(values: FlagValues): Input;
  run(input: Input, clients: OpsClients): Promise<Result>;
  /** The readable summary printed without --json. */
  describe(result: Result): string;
  /** For a command whose result can itself be a failure (a report): the exit status it warrants. Default 0. */
  exitStatus?(result: Result): number;
}

/** Keeps each command's Input and Result types checked while the registry holds them together. */
export function defineCommand<Input, Result extends object>(command: Command<Input, Result>): Command<Input, Result> {
  return command;
}

// The registry erases the types; each command checked them at definition.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyCommand = Command<any, any>;
