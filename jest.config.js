/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // The real-Hadoop, HA and Docker suites: `npm run test:hadoop`, `test:ha`, `test:docker`.
  testPathIgnorePatterns: [
    '/node_modules/',
    '<rootDir>/test/hadoop/',
    '<rootDir>/test/ha/',
    '<rootDir>/test/compose/',
  ],
  transform: {
    // Transpile only (tsconfig.json sets isolatedModules): `npm run typecheck` checks the types
    // once for the whole project.
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
    // The dashboard's browser modules are ES modules; the tests load its charts under Node.
    '^.+/src/dashboard/public/.+\\.js$': ['ts-jest', { diagnostics: false }],
  },
  testTimeout: 60000,
  // Jest's summary, then one plain line of counts: test/support/closing-line-reporter.js.
  reporters: ['default', '<rootDir>/test/support/closing-line-reporter.js'],
  // Integration tests open real sockets and spawn processes; two workers fit a 2-core machine.
  maxWorkers: 2,
};
