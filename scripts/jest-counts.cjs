/**
 * Jest reporter for `npm test` (scripts/test.sh): writes the run's counts, in total and per tier
 * (the projects of jest.config.js), to the file given as `outputFile`. Counts alone, not Jest's
 * --json report, which fails to write when a test's error holds a circular structure.
 */
const { mkdirSync, writeFileSync } = require('node:fs');
const { dirname } = require('node:path');

class JestCounts {
  constructor(_globalConfig, options = {}) {
    this.outputFile = options.outputFile ?? '.tmp/jest-counts.json';
  }

  onRunComplete(_contexts, results) {
    const tiers = {};
    for (const suite of results.testResults) {
      const name = suite.displayName?.name ?? 'tests';
      const tier = (tiers[name] ??= { passed: 0, failed: 0, skipped: 0 });
      tier.passed += suite.numPassingTests;
      // A suite that fails to run counts as one failure, as in the total below.
      tier.failed += suite.numFailingTests + (suite.testExecError ? 1 : 0);
      tier.skipped += suite.numPendingTests + suite.numTodoTests;
    }
    const total = {
      passed: results.numPassedTests,
      failed: results.numFailedTests + results.numRuntimeErrorTestSuites,
      skipped: results.numPendingTests + results.numTodoTests,
    };
    mkdirSync(dirname(this.outputFile), { recursive: true });
    writeFileSync(this.outputFile, JSON.stringify({ total, tiers }));
  }
}

module.exports = JestCounts;
