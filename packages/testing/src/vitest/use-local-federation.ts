import { afterAll, beforeAll, beforeEach } from 'vitest';
import { type LocalFederation, type LocalFederationOptions, startLocalFederation } from '../local-federation.js';
import { TestingError } from '../testing-error.js';

/** Options of {@link useLocalFederation}: those of {@link startLocalFederation}, plus the file's own set-up. */
export interface UseLocalFederationOptions extends LocalFederationOptions {
  /** More set-up once the federation runs and before the first test (an extra join, a second control plane); default none. */
  readonly setup?: (fed: LocalFederation) => Promise<void>;
  /** How long the start and `setup` may take together; default 180 s. */
  readonly timeoutMs?: number;
}

/** Lines of each controller manager's output printed when a test fails. */
const FAILURE_LOG_LINES = 80;

/**
 * The one set-up call of an end-to-end test file: starts a local federation
 * ({@link startLocalFederation}) before the tests of the file (or of the `describe` it is called
 * in) and stops it after them, so that the file goes on with its scenario. Returns the
 * federation; using it before the tests run (at the top level of the file) throws a TestingError.
 * When a test fails, the last lines of every controller manager's output are printed to stderr,
 * so that a failure on CI shows what the controllers did.
 */
export function useLocalFederation(options: UseLocalFederationOptions = {}): LocalFederation {
  let fed: LocalFederation | undefined;
  beforeAll(async () => {
    fed = await startLocalFederation(options);
    await options.setup?.(fed);
  }, options.timeoutMs ?? 180_000);
  beforeEach(({ onTestFailed, task }) => {
    onTestFailed(() => {
      for (const cm of fed?.controllerManagers ?? []) {
        process.stderr.write(
          `--- ${task.name}: the last ${String(FAILURE_LOG_LINES)} lines of ${cm.name} ---\n${cm.tail(FAILURE_LOG_LINES)}\n`,
        );
      }
    });
  });
  afterAll(async () => {
    await fed?.stop();
  });
  return new Proxy({} as LocalFederation, {
    get(_, key) {
      if (fed === undefined) throw new TestingError('useLocalFederation: the federation starts in beforeAll; use it inside a test or hook');
      return Reflect.get(fed, key) as unknown;
    },
  });
}
