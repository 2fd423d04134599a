import { relative } from 'node:path';
import type { Reporter, TestCase } from 'vitest/node';

/**
 * Lists, at the end of a run, every test that failed and then passed on a retry. CI retries an
 * integration or real-substrate test once (`retry` in vitest.config.ts) because those tests run
 * real processes on a shared 2-core machine; this report keeps each such flake visible instead of
 * letting the retry hide it.
 */
export default class FlakyReporter implements Reporter {
  /** Per test that passed only on a retry: its title line, then a line per error of its failed attempts. */
  readonly #flaky: string[][] = [];

  onTestCaseResult(testCase: TestCase): void {
    const diagnostic = testCase.diagnostic();
    if (diagnostic?.flaky) {
      const errors = (testCase.result().errors ?? []).map((error) => `  ${firstLines(error.stack ?? error.message)}`);
      this.#flaky.push([
        `${testCase.project.name} ${relative(process.cwd(), testCase.module.moduleId)} > ${testCase.fullName} (retried ${diagnostic.retryCount}x)`,
        // What the failed attempts threw, so that the flake can be looked into without a rerun.
        ...errors,
      ]);
    }
  }

  onTestRunEnd(): void {
    if (this.#flaky.length === 0) return;
    const lines = this.#flaky.flat().map((line) => `  ${line}\n`);
    process.stdout.write(`\nflaky: ${this.#flaky.length} test(s) passed only on a retry:\n${lines.join('')}`);
  }
}

/** The message and the first stack frame of an error, on one line. */
function firstLines(text: string): string {
  const lines = text.split('\n').map((l) => l.trim());
  const frame = lines.find((l) => l.startsWith('at '));
  return [lines[0], frame].filter((l) => l !== undefined && l !== '').join(' ');
}
