import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

// Lint for defects, not for style: the recommended sets of ESLint and typescript-eslint, plus the
// type-aware rules that catch promises nobody awaits or awaits by mistake (a write that fails
// unseen, a job that ends before its work). Formatting is left alone on purpose. `npm run lint`;
// `.ci/run` runs it after the typecheck.
export default defineConfig(
  globalIgnores(['node_modules/', 'test/fixtures/', 'coverage/']),
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      // vitest.real.config.ts is outside tsconfig.json's include (the typecheck leaves it out too).
      parserOptions: { projectService: { allowDefaultProject: ['vitest.real.config.ts'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      '@typescript-eslint/await-thenable': 'error',
      // `_name` marks a value left unused on purpose (a field dropped from a copy by destructuring).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      // `(r.byhour = intList(…)) ?? bad()`: a deliberate statement form; a bare unused value still fails.
      '@typescript-eslint/no-unused-expressions': ['error', { allowShortCircuit: true, allowTernary: true }],
      // The parsers and the terminal output strip control characters on purpose.
      'no-control-regex': 'off',
      // Style only: an escape that is not needed does no harm.
      'no-useless-escape': 'off',
      // Its findings were deliberate or harmless stores (`let ok = false; try { ok = … } catch { ok = false }`,
      // a string emptied so the collector can take it before a memory measurement).
      'no-useless-assignment': 'off',
    },
  },
  {
    // Functions should fit on a screen (issue 15): every function of the product, its jobs, benches
    // and scripts is under 80 lines. Test files are left out: a describe() block is one function.
    files: ['src/**/*.ts', 'jobs/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }] },
  },
  {
    // Tests read loosely shaped JSON (site records, dumps) and poke at internals.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
);
