// Lint rules that matter for this repository: promise hygiene, exhaustive switches,
// type-only imports, no console in library packages, and the package import rules of
// docs/architecture.md (which package may import which third-party wrapper and which sibling).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Which @kubefed packages each package may import (docs/architecture.md, "Packages"). */
const allowedSiblings = {
  api: [],
  client: ['api'],
  runtime: ['api', 'client'],
  scheduler: ['api'],
  queue: ['api'],
  controllers: ['api', 'client', 'runtime', 'scheduler', 'queue'],
  'controller-manager': ['api', 'client', 'runtime', 'scheduler', 'queue', 'controllers'],
  kubefedctl: ['api', 'client', 'scheduler', 'dashboard'],
  dashboard: ['api', 'client', 'runtime', 'scheduler', 'queue', 'controllers'],
  'kube-sim': ['api'],
  testing: null, // anything
  demo: null, // anything: the demo process drives the real parts
};
const allPackages = Object.keys(allowedSiblings);

/** Third-party libraries that exactly one package wraps. */
const wrapped = {
  '@kubernetes/client-node': ['client'],
  bullmq: ['queue', 'testing'],
  ioredis: ['queue', 'testing'],
};

/** Packages that are processes: they alone read process.env/argv and exit. */
const processPackages = ['controller-manager', 'kubefedctl', 'demo'];

/** The controller folders of @kubefed/controllers, and those that import no other controller. */
const controllerFolders = ['kubefed-cluster', 'kubefed-config', 'federated-type-config', 'sync', 'replica-scheduling'];
const isolatedControllers = ['kubefed-cluster', 'kubefed-config', 'replica-scheduling', 'sync'];

/** The roles of the sync path, in `controllers/src/sync/`. */
const syncRoles = ['reconcile', 'worker', 'status'];

/**
 * The import rule of the files `files` of the controller folder `dir`: the package's rule, no
 * other controller folder, and `extra` if given.
 */
function controllerImportRules(dir, files, extra) {
  const [level, options] = importRulesFor('controllers')['no-restricted-imports'];
  const others = controllerFolders.filter((d) => d !== dir);
  const isolation = {
    group: others.flatMap((d) => [`../${d}/*`, `../../${d}/*`, `../../../${d}/*`]),
    message: `docs/architecture.md: controllers never import each other; move what ${dir}/ shares into a shared module such as placement/.`,
  };
  const patterns = [...options.patterns, isolation, ...(extra === undefined ? [] : [extra])];
  return { files: [files], rules: { 'no-restricted-imports': [level, { ...options, patterns }] } };
}

/** Test files may also use the simulator and the shared test helpers. */
const testOnlySiblings = ['kube-sim', 'testing'];
const testFiles = ['**/*.test.ts', '**/test/**/*.ts'];

function importRulesFor(pkg, { test = false } = {}) {
  const base = allowedSiblings[pkg];
  const siblings = base === null ? null : test ? [...base, ...testOnlySiblings] : base;
  // @kubefed/testing/vitest and @kubefed/testing/fixtures are entries of that package's exports map
  // (the vitest-only helpers; test fixtures that unit tests import without starting anything);
  // @kubefed/runtime/testing (the runtime's test doubles) is for tests alone.
  const entries = ['!@kubefed/testing/vitest', '!@kubefed/testing/fixtures', ...(test ? ['!@kubefed/runtime/testing'] : [])];
  const patterns = [
    {
      group: ['@kubefed/*/*', ...entries],
      message: test
        ? 'Import other packages only through their exports (no deep imports).'
        : 'Import other packages only through their exports (no deep imports; @kubefed/runtime/testing is for tests alone).',
    },
  ];
  if (siblings !== null) {
    const forbidden = allPackages.filter((p) => p !== pkg && !siblings.includes(p));
    if (forbidden.length > 0) {
      patterns.push({
        group: forbidden.map((p) => `@kubefed/${p}`),
        message: `docs/architecture.md: @kubefed/${pkg} may import only ${siblings.map((s) => '@kubefed/' + s).join(', ') || 'no other @kubefed package'}.`,
      });
    }
  }
  const paths = Object.entries(wrapped)
    .filter(([, owners]) => !owners.includes(pkg))
    .map(([name, owners]) => ({ name, message: `docs/architecture.md: only @kubefed/${owners[0]} imports ${name}.` }));
  return { 'no-restricted-imports': ['error', { paths, patterns }] };
}

const processRestriction = {
  'no-restricted-properties': [
    'error',
    { object: 'process', property: 'env', message: 'Only process packages read the environment: take options instead.' },
    { object: 'process', property: 'argv', message: 'Only process packages read argv: take options instead.' },
    { object: 'process', property: 'exit', message: 'Only process packages exit.' },
  ],
};

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/.turbo/**', 'coverage/**', '.tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      // One import statement per module: `import { value, type T } from 'm'`, or `import type`
      // when everything imported from it is a type.
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-duplicate-imports': ['error', { allowSeparateTypeImports: false }],
      '@typescript-eslint/no-import-type-side-effects': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/only-throw-error': 'error',
      'no-console': 'error',
      eqeqeq: ['error', 'smart'],
    },
  },
  { files: ['**/*.js'], ...tseslint.configs.disableTypeChecked },
  // The dashboard's page scripts run in the browser.
  { files: ['packages/dashboard/assets/**/*.js'], languageOptions: { globals: { ...globals.browser } } },
  ...allPackages.map((pkg) => ({
    files: [`packages/${pkg}/**/*.ts`],
    rules: {
      ...importRulesFor(pkg),
      ...(processPackages.includes(pkg) || pkg === 'testing' ? {} : processRestriction),
    },
  })),
  // Controllers never import each other (docs/architecture.md): shared decisions live in
  // `controllers/src/placement/`. The FTC controller alone hosts the sync controllers it starts.
  ...isolatedControllers.map((dir) => controllerImportRules(dir, `packages/controllers/src/${dir}/**/*.ts`)),
  // The roles of the sync path (reconcile/, worker/, status/) never import each other
  // (docs/architecture.md "Who builds what"): what they share is in `sync/shared/` and the pure
  // modules of `sync/`, and `sync/register-sync-path.ts` alone puts them together.
  ...syncRoles.map((role) =>
    controllerImportRules('sync', `packages/controllers/src/sync/${role}/**/*.ts`, {
      group: syncRoles.filter((r) => r !== role).flatMap((r) => [`../${r}/*`, `../../${r}/*`, `../../sync/${r}/*`]),
      message: `docs/architecture.md: sync/${role}/ never imports another role of the sync path; move what they share into sync/shared/.`,
    }),
  ),
  ...allPackages.map((pkg) => ({
    files: testFiles.map((glob) => `packages/${pkg}/${glob}`),
    rules: importRulesFor(pkg, { test: true }),
  })),
  // Processes and their entry points may print.
  {
    files: [
      'packages/kubefedctl/**/*.ts',
      'packages/demo/src/main.ts',
      'packages/controller-manager/src/main.ts',
      'packages/kube-sim/src/cli.ts',
      'packages/*/scripts/**/*.ts',
      'test/**/*.ts',
    ],
    rules: { 'no-console': 'off' },
  },
  // The kube-sim CLI is a process of its own (a stand-in for kube-apiserver).
  { files: ['packages/kube-sim/src/cli.ts', 'packages/*/scripts/**/*.ts'], rules: { 'no-restricted-properties': 'off' } },
  // Tests may use non-null assertions and loose any from parsed JSON.
  {
    files: ['**/*.test.ts', 'test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      'no-restricted-properties': 'off',
    },
  },
);
