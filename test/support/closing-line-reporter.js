/**
 * Ends a Jest run with one plain line of counts, `jest: N passed, N failed, N skipped`, after
 * Jest's own summary (Jest prints that last of all reporters, so the line is written as the
 * process exits), so a log that holds several runs (CI's) closes each with a line that reads the
 * same whatever ran before it. A test file that could not run (a syntax error, a throw at load)
 * counts as one failure: Jest's own test counts leave it out.
 */
const { writeSync } = require('node:fs');

class ClosingLineReporter {
  onRunComplete(_contexts, results) {
    const passed = results.numPassedTests;
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    const skipped = results.numPendingTests + results.numTodoTests;
    const line = `jest: ${passed} passed, ${failed} failed, ${skipped} skipped\n`;
    process.once('exit', () => writeSync(process.stderr.fd, line));
  }
}

module.exports = ClosingLineReporter;
