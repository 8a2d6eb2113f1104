import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  dynamicVariablesToObject,
  fillPlaceholders,
  validateDynamicVariables,
  type DynamicVariableWarning,
} from '../../src/protocol/dynamicVariables.js';

describe('validateDynamicVariables', () => {
  it('keeps valid names and drops names outside [A-Za-z][A-Za-z0-9_]*', () => {
    const { variables, warnings } = validateDynamicVariables({
      name: 'Ada',
      Name_2: 'x',
      a: 1,
      '2fast': 'no',
      _under: 'no',
      'with-dash': 'no',
      'sp ace': 'no',
      '': 'no',
      é: 'no',
    });
    expect([...variables.keys()]).toEqual(['name', 'Name_2', 'a']);
    expect(warnings.map((w) => w.rule)).toEqual(['name', 'name', 'name', 'name', 'name', 'name']);
  });

  it('accepts strings up to 1000 characters and drops longer ones', () => {
    const { variables, warnings } = validateDynamicVariables({
      ok: 'x'.repeat(1000),
      tooLong: 'x'.repeat(1001),
      emoji: '😀'.repeat(1000), // 2000 UTF-16 units, 1000 characters
      emojiLong: '😀'.repeat(1001),
    });
    expect([...variables.keys()]).toEqual(['ok', 'emoji']);
    expect(warnings.map((w) => [w.name, w.rule])).toEqual([
      ['tooLong', 'string-length'],
      ['emojiLong', 'string-length'],
    ]);
  });

  it('accepts numbers and booleans, drops null, objects, arrays and non-finite numbers', () => {
    const { variables, warnings } = validateDynamicVariables({
      n: 42,
      f: -1.5,
      t: true,
      no: false,
      nul: null,
      obj: { a: 1 },
      arr: [1],
      inf: Infinity,
      nan: Number.NaN,
      undef: undefined,
    });
    expect(Object.fromEntries(variables)).toEqual({ n: 42, f: -1.5, t: true, no: false });
    expect(warnings.every((w) => w.rule === 'value-type')).toBe(true);
    expect(warnings).toHaveLength(6);
  });

  it('reads at most 50 entries in wire order; invalid entries count as read', () => {
    const entries: [string, unknown][] = [['bad-name', 1]];
    for (let i = 0; i < 60; i++) entries.push([`v${i}`, i]);
    const json = `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`;
    const { variables, warnings } = validateDynamicVariables(JSON.parse(json));
    expect(variables.size).toBe(49);
    expect([...variables.keys()][0]).toBe('v0');
    expect([...variables.keys()].at(-1)).toBe('v48');
    expect(warnings.at(-1)?.rule).toBe('too-many');
  });

  it('drops an invalid entry with a warning and keeps the rest (never throws)', () => {
    const seen: DynamicVariableWarning[] = [];
    const { variables } = validateDynamicVariables({ good: 'yes', 'bad name': 'x', alsoGood: 2 }, { onWarning: (w) => seen.push(w) });
    expect(Object.fromEntries(variables)).toEqual({ good: 'yes', alsoGood: 2 });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.message).toMatch(/"bad name" dropped/);
  });

  it('treats __proto__ and constructor as plain names: no prototype pollution', () => {
    const parsed = JSON.parse('{"__proto__":{"polluted":true},"constructor":"c","toString":"s","proto2":"x"}');
    const { variables } = validateDynamicVariables(parsed);
    expect(variables.get('constructor')).toBe('c');
    expect(variables.get('toString')).toBe('s');
    // __proto__ fails the name pattern (leading underscore) and is dropped, not applied.
    expect(variables.has('__proto__')).toBe(false);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    const obj = dynamicVariablesToObject(
      new Map([
        ['constructor', 'c'],
        ['__proto__', 'p'],
      ]),
    );
    expect(Object.getPrototypeOf(obj)).toBe(Object.prototype);
    expect(Object.hasOwn(obj, '__proto__')).toBe(true);
    expect(JSON.parse(JSON.stringify(obj))).toEqual(JSON.parse('{"constructor":"c","__proto__":"p"}'));
  });

  it('accepts a Map and an array of entries, in order', () => {
    expect([
      ...validateDynamicVariables(
        new Map<string, unknown>([
          ['b', 1],
          ['a', 2],
        ]),
      ).variables.keys(),
    ]).toEqual(['b', 'a']);
    expect(
      Object.fromEntries(
        validateDynamicVariables([
          ['x', 'y'],
          [5, 'z'],
        ]).variables,
      ),
    ).toEqual({ x: 'y' });
  });

  it('ignores null/undefined and warns on a non-object', () => {
    expect(validateDynamicVariables(undefined).warnings).toEqual([]);
    expect(validateDynamicVariables(null).variables.size).toBe(0);
    expect(validateDynamicVariables('x').warnings[0]?.rule).toBe('not-an-object');
  });

  it('quotes at most 64 characters of a bad name in warnings', () => {
    const { warnings } = validateDynamicVariables({ ['-'.repeat(5000)]: 1 });
    expect(warnings[0]!.message.length).toBeLessThan(200);
  });

  it('property: never throws, never keeps more than 50, every kept entry obeys the rules', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 80 }), (input) => {
        const { variables } = validateDynamicVariables(input);
        expect(variables.size).toBeLessThanOrEqual(50);
        for (const [k, v] of variables) {
          expect(k).toMatch(/^[A-Za-z][A-Za-z0-9_]*$/);
          expect(['string', 'number', 'boolean']).toContain(typeof v);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('fillPlaceholders', () => {
  it('fills {{name}} and {{ name }} from a Map or record', () => {
    const vars = new Map<string, string | number | boolean>([
      ['name', 'Ada'],
      ['n', 3],
      ['vip', true],
    ]);
    expect(fillPlaceholders('Hi {{name}}, you have {{ n }} calls (vip={{vip}})', vars)).toBe('Hi Ada, you have 3 calls (vip=true)');
    expect(fillPlaceholders('Hi {{name}}', { name: 'Bob' })).toBe('Hi Bob');
  });

  it('keeps unknown placeholders by default, or empties them', () => {
    expect(fillPlaceholders('Hi {{who}}!', new Map())).toBe('Hi {{who}}!');
    expect(fillPlaceholders('Hi {{who}}!', new Map(), { missing: 'empty' })).toBe('Hi !');
  });

  it('never fills from Object.prototype', () => {
    expect(fillPlaceholders('{{constructor}} {{toString}}', {})).toBe('{{constructor}} {{toString}}');
  });

  it('does not re-expand placeholders inside values', () => {
    expect(fillPlaceholders('{{a}}', { a: '{{b}}', b: 'x' })).toBe('{{b}}');
  });
});
