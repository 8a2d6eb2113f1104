// Lint rules that find bugs, plus the two conventions the formatter cannot hold (one private-member style,
// 140-column comments and strings). Layout is Prettier's job (.prettierrc.json); no rule here fights it.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const TS_FILES = ['**/*.ts'];

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'bench/out/', 'node_modules/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: { ...globals.node } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // One private-member style: TypeScript `private` (the majority in src/ when this rule came in). `#` fields
      // hide members from subclasses, tests and debuggers, and mixing both made every class read differently.
      'no-restricted-syntax': [
        'error',
        { selector: 'PrivateIdentifier', message: 'Use a TypeScript `private` member, not a `#` field (one style; README "Development").' },
      ],
      // Code is wrapped at 140 by Prettier; this catches what it leaves alone: comments, strings, template literals.
      // URLs and import/export lines are exempt (they cannot be broken meaningfully).
      'max-len': ['error', { code: 140, tabWidth: 2, ignoreUrls: true, ignorePattern: '^\\s*(import|export) .* from ' }],
      // `_`-prefixed names are deliberately unused (destructuring a field away, placeholder parameters).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // `let page = this` starts a cursor walk here; the rule targets pre-arrow-function closures and finds nothing.
      '@typescript-eslint/no-this-alias': 'off',
    },
  },
  {
    // Rules that need type information. Only the ones that catch real faults in stream/async code: a promise
    // nobody awaits or catches (an unhandled rejection takes the process down), a promise where a callback's
    // void return is expected, awaiting a non-promise, and stringifying an object to '[object Object]'.
    // The recommended-type-checked set's no-unsafe-* rules are not used: they flag every `any` from JSON and
    // test doubles (~450 findings) without finding faults. unbound-method is not used either: it misfires on
    // callbacks typed with method shorthand in option interfaces.
    files: TS_FILES,
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-base-to-string': 'error',
      // Rejecting with a caught `unknown` or an AbortSignal's `reason` (typed any) is forwarding, not a fault.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
    },
  },
  {
    // Outside the tsconfig project (no type information).
    files: ['vitest.config.ts', 'eslint.config.js'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // Tests, benches and examples poke at untyped JSON and wasm internals on purpose.
    files: ['test/**', 'bench/**', 'examples/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
