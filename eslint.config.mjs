import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

// The pure core must stay free of I/O, the clock and randomness: the live sidecar, the
// simulator and the emulator all drive it, and a replay must give the same decisions.
const impureModules = [
  'axios',
  'express',
  'better-sqlite3',
  'winston',
  'node-cron',
  'fs',
  'node:fs',
  'fs/promises',
  'node:fs/promises',
  'http',
  'node:http',
  'https',
  'node:https',
  'net',
  'node:net',
  'child_process',
  'node:child_process',
  'crypto',
  'node:crypto',
];

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
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: impureModules.map((name) => ({ name, message: 'src/core is pure: no I/O inside it.' })),
          patterns: [
            {
              group: [
                '../yarn/*',
                '../sim/*',
                '../emulator/*',
                '../api/*',
                '../store/*',
                '../loop/*',
                '../enforce/*',
                '../cli/*',
                '../config/*',
              ],
              message: 'src/core must not depend on drivers.',
            },
          ],
        },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'src/core takes time as a parameter.' },
        { object: 'Math', property: 'random', message: 'src/core takes randomness from outside (seeded).' },
        { object: 'performance', property: 'now', message: 'src/core takes time as a parameter.' },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'src/core takes time as a parameter.',
        },
        {
          selector: "MemberExpression[object.name='process']",
          message: 'src/core does not read the process environment.',
        },
      ],
    },
  },
  prettier,
);
