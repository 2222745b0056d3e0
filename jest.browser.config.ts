import type { Config } from 'jest';

/**
 * `npm run test:browser`: the tests that drive a real browser (Debian's chromium through
 * playwright-core). Same native-ESM setup as jest.config.ts, its own root.
 */
const config: Config = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }],
  },
  roots: ['<rootDir>/test/browser'],
  testMatch: ['**/*.e2e-spec.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  globalSetup: '<rootDir>/test/support/global-setup.mjs',
  globalTeardown: '<rootDir>/test/support/global-teardown.mjs',
  setupFilesAfterEnv: ['<rootDir>/test/support/preload-esm.ts'],
  testTimeout: 120_000,
  maxWorkers: 1,
};

export default config;
