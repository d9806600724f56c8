/**
 * `npm run test:hadoop`: the tests in test/hadoop/ against a real Hadoop cluster (Java 17 and
 * Maven needed; see docs/real-hadoop.md). One cluster is started for the whole run in
 * globalSetup; files that need another configuration (auth, HA, a priority cap) start their own.
 * @type {import('jest').Config}
 */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test/hadoop'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
  },
  globalSetup: '<rootDir>/test/hadoop/global-setup.ts',
  globalTeardown: '<rootDir>/test/hadoop/global-teardown.ts',
  // A skipped test is a failed run here: the point of this suite is that every check ran.
  reporters: [
    'default',
    '<rootDir>/test/hadoop/no-skipped-tests-reporter.js',
    '<rootDir>/test/support/closing-line-reporter.js',
  ],
  // The daemons' JVMs already fill a 2-core machine: one test file at a time.
  maxWorkers: 1,
  testTimeout: 180000,
};
