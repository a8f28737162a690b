/**
 * Validation of command-line flags. A FlagReader reads every flag a command
 * takes, remembers each problem, and `done()` throws one VALIDATION_FAILED
 * naming all of them, so an operator fixes a command line in one go.
 * Money stays a decimal string: parsed strictly by @platform/money and
 * re-formatted at the currency's exact scale.
 */
import { isUuid } from '@platform/ids';
import { formatAmount, parseAmount } from '@platform/money';
import { CliError } from './cli-error';

export type FlagValues = Record<string, string | boolean | undefined>;

/** LDH labels, at least two, ASCII only: the rule the wallet registry applies to the admin domain. */
const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
/** Counts and limits are small integers (at most 9 digits); money never goes through here. */
const SMALL_INTEGER = /^\d{1,9}$/;

export interface IntegerBounds {
  min: number;
  max: number;
}

export class FlagReader {
  private readonly problems: string[] = [];

  constructor(private readonly values: FlagValues) {}

  /** Records a problem with `flag` found by a check the reader does not know. */
  refuse(flag: string, why: string): void {
    this.problems.push(`--${flag} (${why})`);
  }

  /** Throws VALIDATION_FAILED naming every problem found so far. */
  done(): void {
    if (this.problems.length > 0) {
      throw new CliError('VALIDATION_FAILED', `Validation failed on: ${this.problems.join(', ')}`);
    }
  }

  hasProblems(): boolean {
    return this.problems.length > 0;
  }

  flag(flag: string): boolean {
    return this.values[flag] === true;
  }

  private raw(flag: string, required: boolean): string | undefined {
    const value = this.values[flag];
    if (typeof value === 'string') return value;
    if (required) this.refuse(flag, 'required');
    return undefined;
  }

  /** Trimmed text of 1..lengthMax characters. */
  text(flag: string, lengthMax: number): string {
    const value = this.raw(flag, true)?.trim();
    if (value === undefined) return '';
    if (value.length === 0 || value.length > lengthMax) this.refuse(flag, `1 to ${lengthMax} characters`);
    return value;
  }

  uuid(flag: string, required: true): string;
  uuid(flag: string, required: false): string | undefined;
  uuid(flag: string, required: boolean): string | undefined {
    const value = this.raw(flag, required)?.trim().toLowerCase();
    if (value === undefined) return undefined;
    if (!isUuid(value)) this.refuse(flag, 'expected a UUID');
    return value;
  }

  domain(flag: string): string {
    const value = this.raw(flag, true)?.trim().toLowerCase();
    if (value === undefined) return '';
    if (!DOMAIN.test(value)) this.refuse(flag, 'expected a plain ASCII domain such as example.com');
    return value;
  }

  choice<T extends string>(flag: string, choices: readonly T[], fallback: T): T {
    const value = this.raw(flag, false);
    if (value === undefined) return fallback;
    if ((choices as readonly string[]).includes(value)) return value as T;
    this.refuse(flag, `one of ${choices.join(', ')}`);
    return fallback;
  }

  integer(flag: string, bounds: IntegerBounds, fallback: number): number {
    const value = this.raw(flag, false);
    if (value === undefined) return fallback;
    const parsed = SMALL_INTEGER.test(value) ? Number(value) : NaN;
    if (Number.isInteger(parsed) && parsed >= bounds.min && parsed <= bounds.max) return parsed;
    this.refuse(flag, `an integer from ${bounds.min} to ${bounds.max}`);
    return fallback;
  }

  /** A KES amount (at most 2 decimals) formatted at exactly 2; `positive` refuses zero. */
  kesAmount(flag: string, options: { positive: boolean; fallback: string }): string {
    const value = this.raw(flag, false);
    if (value === undefined) return options.fallback;
    const amount = parseAmount(value, 'KES');
    if (amount && (!options.positive || amount.gt(0))) return formatAmount(amount, 'KES');
    this.refuse(flag, `a KES amount like 1000.00${options.positive ? ' above zero' : ''}`);
    return options.fallback;
  }

  /** Comma-separated members of `allowed`, each at most once, in the order given. */
  list<T extends string>(flag: string, allowed: readonly T[]): T[] {
    const value = this.raw(flag, false);
    if (value === undefined) return [];
    const items = value.split(',').map((item) => item.trim());
    const unknown = items.filter((item) => !(allowed as readonly string[]).includes(item));
    if (items.length === 0 || unknown.length > 0) {
      this.refuse(flag, `comma-separated, from ${allowed.join(', ')}`);
      return [];
    }
    return [...new Set(items)] as T[];
  }

  /** An https:// URL (the webhook service applies the full target rules). */
  httpsUrl(flag: string, lengthMax: number): string {
    const value = this.raw(flag, true)?.trim();
    if (value === undefined) return '';
    if (value.length > lengthMax || !isHttpsUrl(value)) this.refuse(flag, 'an https:// URL');
    return value;
  }

  /** A secret of lengthMin..lengthMax characters, taken exactly as given (no trimming). */
  secret(flag: string, lengthMin: number, lengthMax: number): string {
    const value = this.raw(flag, true);
    if (value === undefined) return '';
    if (value.length < lengthMin || value.length > lengthMax)
      this.refuse(flag, `${lengthMin} to ${lengthMax} characters`);
    return value;
  }
}

function isHttpsUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.hostname !== '' && url.username === '' && url.password === '';
  } catch {
    return false;
  }
}
