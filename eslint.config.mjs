// The lint rules `npm test` enforces: typescript-eslint's recommended rules, no import cycles
// inside a package, and the layering the house follows. Dependencies point one way (entry →
// config → server wiring → handlers → use cases → domain → persistence and adapters), services
// never import each other, and libraries never import a service. Formatting is Prettier's
// (prettier.config.mjs); nothing here argues about layout.
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

/** What the inner layers of a service may never reach: the transport and its generated code. */
const TRANSPORT = [
  { group: ['**/grpc/*', '**/grpc'], message: 'Use cases and the domain do not know the transport: take a port (adapters/peers) or a plain type instead.' },
  { group: ['**/workers/*', '**/http/*'], message: 'Use cases and the domain are called by workers and handlers, never the other way round.' },
  { group: ['@platform/proto', '@platform/proto/*', '@grpc/grpc-js'], message: 'Generated gRPC types stay in handlers and adapters; use cases see ports (adapters/peers) and domain types.' },
];

/** A service's code and specs reach another service over gRPC only, never by importing its package. */
const OTHER_SERVICES = [
  { group: ['@platform/*-service', '@platform/*-service/*'], message: 'Services never import each other: call the peer through a port (adapters/peers), or move shared code into a library.' },
];

/**
 * The partner contract's package loads zod and builds the OpenAPI document: only the gateway serves it. Any other
 * service reads the contract's lists (statuses, scopes) by their own path, modules that load nothing.
 */
const CONTRACT_LISTS_ONLY = [
  { regex: '^@platform/openapi(?!/dist/contract/(statuses|scopes)$)', message: 'Outside the gateway, import only @platform/openapi/dist/contract/statuses or /scopes: the package index loads zod and the whole contract.' },
];

/** What the domain may not reach besides the transport: it is pure rules over values. */
const OUTSIDE_THE_DOMAIN = [
  { group: ['**/usecases/*', '**/usecases/**'], message: 'The domain is used by use cases, not the reverse.' },
  { group: ['**/persistence/*', '**/adapters/*', '**/adapters/**'], message: 'The domain holds rules over values; persistence and adapters are reached through use cases.' },
];

export default tseslint.config(
  {
    ignores: [
      '**/dist/**', '**/node_modules/**', '**/.turbo/**', '**/coverage/**', 'proto/src/gen/**', '**/*.d.ts',
      '.stack*/**', 'bench/results/**', 'libs/openapi/openapi.json',
    ],
  },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver': undefined,
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: ['tsconfig.base.json'] })],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      // A service reaching into another's files by a relative path is a hidden dependency.
      'import-x/no-relative-packages': 'error',
    },
  },
  {
    // An underscore marks what is deliberately unused; a rest sibling leaves out what it names.
    files: ['**/*.{ts,js,mjs,cjs}'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
    },
  },
  {
    // A later block's options for the same rule replace an earlier one's, so each names every pattern it keeps.
    files: ['services/*/src/**/*.ts', 'services/*/test/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: OTHER_SERVICES }] },
  },
  {
    files: ['services/*/src/**/*.ts'],
    ignores: ['services/gateway/**', '**/*.spec.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [...OTHER_SERVICES, ...CONTRACT_LISTS_ONLY] }] },
  },
  {
    files: ['services/*/src/usecases/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [...TRANSPORT, ...OTHER_SERVICES, ...CONTRACT_LISTS_ONLY] }] },
  },
  {
    files: ['services/*/src/domain/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [...TRANSPORT, ...OUTSIDE_THE_DOMAIN, ...OTHER_SERVICES, ...CONTRACT_LISTS_ONLY] }] },
  },
  {
    files: ['libs/*/src/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [{ group: ['**/services/**', '@platform/*-service', '@platform/*-service/*'], message: 'A library serves every service and imports none.' }],
      }],
    },
  },
  {
    // The bench's pure helpers are CommonJS so the unit project's jest loads them as they are.
    files: ['bench/lib/**/*.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Tests may reach for what they need to prove a behaviour.
    files: ['**/*.spec.ts', '**/test/**/*.ts', 'libs/testing/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
