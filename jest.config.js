// Two jest projects, selected by name (`npx jest --selectProjects unit|integration`):
// - unit: `*.spec.ts` next to the code in src/ (and the bench's pure helpers in bench/lib/), no servers needed;
// - integration: `*.int.spec.ts` in test/, run by `npm test` against the test stack it
//   starts (TEST_STACK_FILE points at .stack-test/stack.json).
// - faults: `*.faults.spec.ts` in tools/*/faults/, run by `npm test` after integration, serially
//   and alone, against the same stack (they stop its Redis, PostgreSQL, RabbitMQ and services).
// Both share jest.preset.js (swc transform).
// Integration tests get 60 s each: Jest 29 rejects testTimeout inside a project ("Unknown
// option") and would apply a top-level one to unit tests too, so scripts/test.mjs passes
// --testTimeout=60000 to the integration run. Running it by hand, pass it as well.
const fs = require('node:fs');
const path = require('node:path');
const preset = require('./jest.preset.js');

const ignored = ['/node_modules/', '/dist/'];

// Only these folders are crawled: the stack folders (.stack/, .stack-test/) hold database
// and broker files that jest has no business indexing.
const roots = ['libs', 'services', 'tools', 'proto', 'bench', 'scripts']
  .filter((folder) => fs.existsSync(path.join(__dirname, folder)))
  .map((folder) => `<rootDir>/${folder}`);

const common = {
  ...preset,
  rootDir: __dirname,
  roots,
  testPathIgnorePatterns: ignored,
  // The bench's output (git-ignored) may hold a copy of built packages (a before/after comparison's
  // "before"), whose package.json names would otherwise collide with the workspaces' own.
  modulePathIgnorePatterns: ['<rootDir>/bench/results/'],
};

module.exports = {
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: [
        '<rootDir>/{libs,services,tools}/*/src/**/*.spec.ts',
        '<rootDir>/proto/src/**/*.spec.ts',
        '<rootDir>/bench/lib/**/*.spec.ts',
        '<rootDir>/scripts/lib/**/*.spec.ts',
      ],
      // `.int.spec.ts` files also end in `.spec.ts`; they belong to the integration project only.
      testPathIgnorePatterns: [...ignored, '\\.int\\.spec\\.ts$'],
    },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/{libs,services,tools}/*/test/**/*.int.spec.ts'],
    },
    {
      // Stops the test stack's infrastructure and services: run alone, after `integration` (scripts/test.mjs).
      ...common,
      displayName: 'faults',
      testMatch: ['<rootDir>/tools/*/faults/**/*.faults.spec.ts'],
    },
  ],
};
