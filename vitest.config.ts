import { defineConfig } from 'vitest/config';

// Tests run on TypeScript sources: every package exports its `src/index.ts` under the
// `@kubefed/source` condition, so no build is needed before `vitest`.
const conditions = ['@kubefed/source', 'node', 'import', 'module', 'default'];

// On CI, a failed integration or real-substrate test runs once more: they start real processes
// (kube-sim, kube-apiserver, redis-server, controller managers) on a shared 2-core machine.
// tools/vitest/flaky-reporter.ts lists every test that needed the retry at the end of the run.
const retry = process.env.CI ? 1 : 0;
// Tests of real processes wait for watches and controllers: an `expect.poll` without a timeout
// of its own waits up to 10 s there (vitest's default is 1 s).
const expect = { poll: { timeout: 10_000 } };

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: conditions } },
  test: {
    reporters: ['default', './tools/vitest/flaky-reporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['packages/*/src/**/*.test.ts', 'packages/*/scripts/**/*.test.ts'],
          exclude: ['**/*.int.test.ts', '**/*.real.test.ts', '**/node_modules/**', '**/dist/**'],
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['packages/*/{src,test}/**/*.int.test.ts', 'test/e2e/**/*.test.ts'],
          exclude: ['**/*.real.test.ts', '**/node_modules/**', '**/dist/**'],
          // Two files at once even on two cores (vitest's default there is one): the files spend
          // much of their time waiting for the processes they start, and the whole project runs in
          // about 21 minutes instead of 31, with no test retried (CI=true npx vitest run --project integration).
          maxWorkers: 2,
          // Vitest runs projects of different maxWorkers one after the other: unit, then integration, then real.
          sequence: { groupOrder: 1 },
          testTimeout: 60_000,
          hookTimeout: 60_000,
          retry,
          expect,
        },
      },
      {
        // Real Kubernetes components (`npm run kube:build` first): the `*.real.test.ts` files and
        // the whole end-to-end suite with KUBEFED_TEST_SUBSTRATE=real, so that every local
        // federation (and the demo) runs on etcd, kube-apiserver, kube-controller-manager,
        // kube-scheduler and kwok instead of kube-sim. `npm test` leaves them out
        // (`--project '!real'`), `npm run test:real` runs them. One file at a time: a federation
        // of real control planes takes about 0.5 GiB and a good share of a core per cluster.
        extends: true,
        test: {
          name: 'real',
          include: ['packages/*/{src,test}/**/*.real.test.ts', 'test/e2e/**/*.test.ts'],
          exclude: ['**/node_modules/**', '**/dist/**'],
          env: { KUBEFED_TEST_SUBSTRATE: 'real' },
          fileParallelism: false,
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
          testTimeout: 120_000,
          hookTimeout: 240_000,
          retry,
          expect,
        },
      },
    ],
  },
});
