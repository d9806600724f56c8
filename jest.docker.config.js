/**
 * `npm run test:docker` (scripts/test-docker.sh): docker/compose.yaml and its HA overlay brought
 * up for real by a Docker engine, driven from the host. One file, its steps in order.
 * @type {import('jest').Config}
 */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test/compose'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
  },
  // A skipped test is a failed run here, as in the real-Hadoop suite.
  reporters: [
    'default',
    '<rootDir>/test/hadoop/no-skipped-tests-reporter.js',
    '<rootDir>/test/support/closing-line-reporter.js',
  ],
  maxWorkers: 1,
  testTimeout: 600000,
};
