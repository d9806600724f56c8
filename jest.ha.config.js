/**
 * `npm run test:ha`: the high-availability tests in test/ha/ against a real ZooKeeper (Java 17
 * and the real-Hadoop launcher's jars, built with Maven; see docs/real-hadoop.md) and, for the
 * failover tests, a real PostgreSQL. Two sidecar processes, the emulated RM, and their faults.
 * @type {import('jest').Config}
 */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test/ha'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
  },
  // ZooKeeper's JVM, PostgreSQL and two sidecars fill a 2-core machine: one file at a time.
  maxWorkers: 1,
  testTimeout: 180000,
  reporters: ['default', '<rootDir>/test/support/closing-line-reporter.js'],
};
