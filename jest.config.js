// Tests run as ESM (the platform is an ES module project) through SWC; see docs/testing.md.
/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: { parser: { syntax: 'typescript', decorators: false }, target: 'es2022' },
        module: { type: 'es6' },
      },
    ],
  },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testMatch: ['<rootDir>/test/**/*.test.ts', '<rootDir>/gateway/**/*.test.ts', '<rootDir>/subgraphs/**/*.test.ts'],
  globalSetup: '<rootDir>/test/support/global-setup.mjs',
  globalTeardown: '<rootDir>/test/support/global-teardown.mjs',
  testTimeout: 60_000,
  maxWorkers: 2,
};
