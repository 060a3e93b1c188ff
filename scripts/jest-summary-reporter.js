// Ends the test output with the plain closing line CI reads: "tests: N passed, N failed".
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    process.stderr.write(
      `tests: ${results.numPassedTests} passed, ${results.numFailedTests + results.numRuntimeErrorTestSuites} failed` +
        (skipped ? `, ${skipped} skipped` : '') +
        '\n',
    );
  }
}
module.exports = SummaryReporter;
