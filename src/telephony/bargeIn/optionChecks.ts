/**
 * The barge-in options' shared checks: each returns the value when it is valid and throws an
 * `InvalidOptionError` naming the option otherwise (one wording for every option of a kind).
 */
import { InvalidOptionError } from '../../errors.js';

/** A level in dB: any number, not NaN. */
export function dbOption(name: string, value: number): number {
  if (Number.isNaN(value)) throw new InvalidOptionError(name, `${name} must be a number of dB`);
  return value;
}

/** A count of windows or calls: an integer ≥ 0. */
export function countOption(name: string, value: number): number {
  if (!(Number.isInteger(value) && value >= 0)) throw new InvalidOptionError(name, `${name} must be an integer ≥ 0, got ${value}`);
  return value;
}

/** One of a few named choices ("'a', 'b' or 'c'" in the message). */
export function choiceOption<T extends string>(name: string, value: T, allowed: readonly T[]): T {
  if (allowed.includes(value)) return value;
  const quoted = allowed.map((a) => `'${a}'`);
  const list = quoted.length > 1 ? `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)!}` : quoted.join('');
  throw new InvalidOptionError(name, `${name} must be ${list}, got ${String(value)}`);
}
