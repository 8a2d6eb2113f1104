/**
 * The dynamic-variable rules, in one module shared by the client's `sessions.create`, the
 * inbound-call helper and the local service.
 *
 * Rules (spec "Inbound call webhook" and "Limits"):
 * 1. Names match `[A-Za-z][A-Za-z0-9_]*`.
 * 2. Values are strings of at most 1000 characters (counted in Unicode code points), finite
 *    numbers or booleans.
 * 3. At most 50 entries are read, in order; invalid entries count as read.
 *
 * An invalid entry is dropped with a warning and the rest are kept: the inbound endpoint must never
 * block a call. Results live in a `Map`, so names like `__proto__` or `constructor` are just names
 * (no prototype pollution).
 *
 * Order: for a JS object, "wire order" is the object's key order, which equals the JSON text's
 * order except that JavaScript moves integer-like keys (`"1"`) to the front. Such keys are invalid
 * names and dropped either way, but they count toward the 50 from the front.
 */

export const DYNAMIC_VARIABLE_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_]*$/;
/** Longest string value, in Unicode code points. */
export const MAX_DYNAMIC_VARIABLE_STRING_LENGTH = 1000;
/** Entries read from one set of dynamic variables. */
export const MAX_DYNAMIC_VARIABLES = 50;

export type DynamicVariableValue = string | number | boolean;

export type DynamicVariableRule = 'not-an-object' | 'name' | 'value-type' | 'string-length' | 'too-many';

export interface DynamicVariableWarning {
  rule: DynamicVariableRule;
  /** The entry's name (absent for `not-an-object`), as received. */
  name?: string;
  /** 0-based position of the entry in the input. */
  index?: number;
  message: string;
}

export interface DynamicVariablesResult {
  variables: Map<string, DynamicVariableValue>;
  warnings: DynamicVariableWarning[];
}

export interface DynamicVariablesOptions {
  /** Called once per dropped entry (besides being listed in `warnings`). */
  onWarning?: (warning: DynamicVariableWarning) => void;
}

/** Longest name quoted in a warning, so a huge name cannot flood the logs. */
const MAX_QUOTED_NAME = 64;

function quote(name: string): string {
  return JSON.stringify(name.length > MAX_QUOTED_NAME ? `${name.slice(0, MAX_QUOTED_NAME)}…` : name);
}

/** True when `s` has at most `max` code points (fast path on UTF-16 length). */
function withinCodePoints(s: string, max: number): boolean {
  if (s.length <= max) return true;
  if (s.length > 2 * max) return false;
  let count = 0;
  for (const _ of s) {
    if (++count > max) return false;
  }
  return true;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number') return 'a non-finite number';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Own entries of a Map, an array of `[name, value]` pairs, or a plain object, in order. */
function entriesOf(input: object): Iterable<[unknown, unknown]> {
  if (input instanceof Map) return input.entries() as Iterable<[unknown, unknown]>;
  if (Array.isArray(input)) {
    return input.map((e): [unknown, unknown] => (Array.isArray(e) ? [e[0], e[1]] : [undefined, e]));
  }
  return Object.keys(input).map((k): [unknown, unknown] => [k, (input as Record<string, unknown>)[k]]);
}

/**
 * Applies the rules; never throws. `null`/`undefined` give an empty result without a warning.
 *
 * @example
 * const { variables, warnings } = validateDynamicVariables(body.dynamic_variables);
 */
export function validateDynamicVariables(input: unknown, options: DynamicVariablesOptions = {}): DynamicVariablesResult {
  const variables = new Map<string, DynamicVariableValue>();
  const warnings: DynamicVariableWarning[] = [];
  const warn = (w: DynamicVariableWarning): void => {
    warnings.push(w);
    options.onWarning?.(w);
  };
  if (input === undefined || input === null) return { variables, warnings };
  if (typeof input !== 'object') {
    warn({ rule: 'not-an-object', message: `dynamic_variables must be an object, got ${describe(input)}; ignored` });
    return { variables, warnings };
  }
  let index = 0;
  for (const [name, value] of entriesOf(input)) {
    if (index >= MAX_DYNAMIC_VARIABLES) {
      warn({
        rule: 'too-many',
        index,
        message: `only the first ${MAX_DYNAMIC_VARIABLES} dynamic variables are read; the rest are dropped`,
      });
      break;
    }
    const at = index++;
    if (typeof name !== 'string' || !DYNAMIC_VARIABLE_NAME_PATTERN.test(name)) {
      const shown = typeof name === 'string' ? quote(name) : `(${describe(name)})`;
      warn({
        rule: 'name',
        ...(typeof name === 'string' ? { name } : {}),
        index: at,
        message: `dynamic variable ${shown} dropped: names must match ${DYNAMIC_VARIABLE_NAME_PATTERN.source}`,
      });
      continue;
    }
    if (typeof value === 'string') {
      if (!withinCodePoints(value, MAX_DYNAMIC_VARIABLE_STRING_LENGTH)) {
        warn({
          rule: 'string-length',
          name,
          index: at,
          message: `dynamic variable ${quote(name)} dropped: strings are at most ${MAX_DYNAMIC_VARIABLE_STRING_LENGTH} characters`,
        });
        continue;
      }
    } else if (!(typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value)))) {
      warn({
        rule: 'value-type',
        name,
        index: at,
        message: `dynamic variable ${quote(name)} dropped: values are strings, numbers or booleans, got ${describe(value)}`,
      });
      continue;
    }
    variables.set(name, value);
  }
  return { variables, warnings };
}

/**
 * A plain object for a JSON body. `Object.fromEntries` defines own properties, so a variable
 * named `__proto__` stays a key and never becomes a prototype.
 */
export function dynamicVariablesToObject(variables: ReadonlyMap<string, DynamicVariableValue>): Record<string, DynamicVariableValue> {
  return Object.fromEntries(variables);
}

const PLACEHOLDER = /\{\{\s*([A-Za-z][A-Za-z0-9_]*)\s*\}\}/g;

export interface FillOptions {
  /** What a placeholder without a variable becomes. @defaultValue `'keep'` (left as written) */
  missing?: 'keep' | 'empty';
}

/**
 * Replaces `{{name}}` (spaces inside the braces allowed) with the variable's value.
 * Lookups are own-key only, so `{{constructor}}` is never filled from `Object.prototype`.
 *
 * @example fillPlaceholders('Hi {{name}}', new Map([['name', 'Ada']])) // 'Hi Ada'
 */
export function fillPlaceholders(
  template: string,
  variables: ReadonlyMap<string, DynamicVariableValue> | Record<string, DynamicVariableValue>,
  options: FillOptions = {},
): string {
  const lookup = (name: string): DynamicVariableValue | undefined => {
    if (variables instanceof Map) return variables.get(name);
    const rec = variables as Record<string, DynamicVariableValue>;
    return Object.hasOwn(rec, name) ? rec[name] : undefined;
  };
  return template.replace(PLACEHOLDER, (whole, name: string) => {
    const value = lookup(name);
    if (value === undefined) return options.missing === 'empty' ? '' : whole;
    return String(value);
  });
}
