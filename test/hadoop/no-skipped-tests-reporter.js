/**
 * Fails the real-Hadoop run when any test was skipped, left as todo or not run because of
 * `.only`: a green run must mean every check ran against the real cluster.
 */
class NoSkippedTestsReporter {
  constructor() {
    this.error = undefined;
  }

  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    if (skipped > 0 || results.numPendingTestSuites > 0) {
      this.error = new Error(
        `${skipped} test(s) skipped or todo in the real-Hadoop suite: every test must run (remove .skip/.only/.todo)`,
      );
      process.stderr.write(`\n${this.error.message}\n`);
    } else if (results.numTotalTests === 0) {
      this.error = new Error('the real-Hadoop suite ran no tests');
      process.stderr.write(`\n${this.error.message}\n`);
    }
  }

  getLastError() {
    return this.error;
  }
}

module.exports = NoSkippedTestsReporter;
