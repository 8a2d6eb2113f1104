/**
 * Dynamic variables, read and applied with the webhook toolkit's rules (names
 * `[A-Za-z][A-Za-z0-9_]*`, strings ≤ 1000 characters, numbers, booleans, at most 50 entries read
 * in order, invalid entries dropped with a warning, a Map so no name can pollute a prototype).
 *
 * @see docs/service-interface.md#inbound-call-webhook and #limits
 */
import {
  fillPlaceholders,
  validateDynamicVariables,
  type DynamicVariableValue,
  type DynamicVariableWarning,
} from '../../protocol/dynamicVariables.js';

export type DynamicVariables = Map<string, DynamicVariableValue>;

/**
 * Reads a `dynamic_variables` value. Null when it is not an object at all; otherwise the valid
 * entries and, per dropped entry, the toolkit's warning.
 */
export function readDynamicVariables(raw: unknown): { variables: DynamicVariables; warnings: DynamicVariableWarning[] } | null {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw) || raw instanceof Map) return null;
  return validateDynamicVariables(raw);
}

/** Warnings that mean an entry itself was invalid (the 50-entry cap is not one). */
export function invalidEntries(warnings: readonly DynamicVariableWarning[]): DynamicVariableWarning[] {
  return warnings.filter((w) => w.rule !== 'too-many');
}

/** Fills `{{name}}` placeholders of the published prompt; names without a value stay as written. */
export function fillTemplate(template: string, vars: DynamicVariables): string {
  return fillPlaceholders(template, vars);
}
