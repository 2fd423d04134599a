import { relative } from 'node:path';
import type { Reporter, TestCase } from 'vitest/node';

/**
 * Lists, at the end of a run, every test that failed and then passed on a retry. CI retries an
 * integration or real-substrate test once (`retry` in vitest.config.ts) because those tests run
 * real processes on a shared 2-core machine; this report keeps each such flake visible instead of
 * letting the retry hide it.
 */
export default class FlakyReporter implements Reporter {
  readonly #flaky: string[] = [];

  onTestCaseResult(testCase: TestCase): void {
    const diagnostic = testCase.diagnostic();
    if (diagnostic?.flaky) {
      this.#flaky.push(
        `${testCase.project.name} ${relative(process.cwd(), testCase.module.moduleId)} > ${testCase.fullName} (retried ${diagnostic.retryCount}x)`,
      );
    }
  }

  onTestRunEnd(): void {
    if (this.#flaky.length === 0) return;
    console.log(`\nflaky: ${this.#flaky.length} test(s) passed only on a retry:`);
    for (const line of this.#flaky) console.log(`  ${line}`);
  }
}
