import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import { importX, createNodeResolver } from 'eslint-plugin-import-x';

// The pure core (src/core) must stay free of I/O, the clock and randomness: the live sidecar,
// the simulator and the emulator all drive it, and a replay must give the same decisions. It
// may import the core itself, zod and the error catalog (src/errors), nothing else, at any
// depth: import-x/no-restricted-paths judges the file an import resolves to, not its spelling.
const coreMessage = 'src/core is pure: it imports only src/core, src/errors and zod.';

// What the core may not call: time and randomness come in as parameters, timers belong to
// the drivers. `new Date(ms)` (a conversion) stays allowed; `new Date()` and `Date()` read the clock.
const impureGlobals = [
  'setTimeout',
  'setInterval',
  'setImmediate',
  'clearTimeout',
  'clearInterval',
  'clearImmediate',
  'queueMicrotask',
  'performance',
  'process',
  'crypto',
  'fetch',
  'require',
  'globalThis',
].map((name) => ({
  name,
  message: `${coreMessage} No timers, clock, randomness or process state (${name}).`,
}));

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'out/**', 'test/fixtures/**', 'test-output/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        process: 'readonly',
        console: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  // The dashboard's browser modules (src/dashboard/public): native ES modules in the page, with
  // the browser's globals; no import cycle among them either.
  {
    files: ['src/dashboard/public/**/*.js'],
    plugins: { 'import-x': importX },
    languageOptions: {
      sourceType: 'module',
      globals: Object.fromEntries(
        [
          'window',
          'document',
          'fetch',
          'sessionStorage',
          'URL',
          'URLSearchParams',
          'Element',
          'HTMLElement',
          'HTMLInputElement',
          'HTMLSelectElement',
          'HTMLTableElement',
          'SVGElement',
        ]
          .map((name) => [name, 'readonly'])
          // Not Node's: the page has none of them.
          .concat(['require', 'module', '__dirname', 'process'].map((name) => [name, 'off'])),
      ),
    },
    settings: { 'import-x/resolver-next': [createNodeResolver({ extensions: ['.js'] })] },
    rules: {
      'import-x/no-cycle': 'error',
      'import-x/no-unresolved': 'error',
    },
  },
  // Module boundaries, on resolved files. No import cycles anywhere (a type-only import is
  // erased at compile time and not counted by import-x; test/architecture checks those too).
  {
    files: ['**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.json'] })],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-unresolved': 'error',
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            { target: './src/core', from: './src', except: ['./core', './errors'], message: coreMessage },
            {
              target: './src/api',
              from: './src/loop',
              message: 'The API reaches the loop only through the SidecarService interface (src/api/app.ts).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      // Packages: zod only (node: modules, axios, express, winston, crypto, ... all refused).
      'no-restricted-imports': ['error', { patterns: [{ regex: '^(?!zod$)[^.]', message: coreMessage }] }],
      'no-restricted-globals': ['error', ...impureGlobals],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'src/core takes time as a parameter.' },
        { object: 'Math', property: 'random', message: 'src/core takes randomness from outside (seeded).' },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'src/core takes time as a parameter.',
        },
        { selector: "CallExpression[callee.name='Date']", message: 'src/core takes time as a parameter.' },
        { selector: 'ImportExpression', message: `${coreMessage} No dynamic imports.` },
      ],
    },
  },
  prettier,
);
