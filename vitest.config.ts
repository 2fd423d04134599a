import { defineConfig } from 'vitest/config';

// Tests run on TypeScript sources: every package exports its `src/index.ts` under the
// `@kubefed/source` condition, so no build is needed before `vitest`.
const conditions = ['@kubefed/source', 'node', 'import', 'module', 'default'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: conditions } },
  test: {
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
          exclude: ['**/node_modules/**', '**/dist/**'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        // Real Kubernetes binaries (`npm run kube:build` first); `npm test` leaves them out
        // (`--project '!real'`), `npm run test:real` runs them.
        extends: true,
        test: {
          name: 'real',
          include: ['packages/*/{src,test}/**/*.real.test.ts'],
          exclude: ['**/node_modules/**', '**/dist/**'],
          testTimeout: 120_000,
          hookTimeout: 240_000,
        },
      },
    ],
  },
});
