// Shared jest settings: swc transpiles TypeScript (with legacy decorators and their
// metadata, which TypeORM entities need), so tests start fast and never type-check;
// `npm run typecheck` does that.
module.exports = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
          target: 'es2022',
        },
        module: { type: 'commonjs' },
      },
    ],
  },
  moduleFileExtensions: ['ts', 'js', 'json'],
};
