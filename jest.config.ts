import type { Config } from 'jest';

/**
 * Nest 12 ships as ES modules only, so Jest runs in its native ESM mode
 * (`--experimental-vm-modules`, see the `test` script) and ts-jest emits ESM.
 */
const config: Config = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }],
  },
  roots: ['<rootDir>/src', '<rootDir>/test'],
  testMatch: ['**/*.spec.ts', '**/*.e2e-spec.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '/test/reliability/', '/test/browser/'],
  globalSetup: '<rootDir>/test/support/global-setup.mjs',
  globalTeardown: '<rootDir>/test/support/global-teardown.mjs',
  setupFilesAfterEnv: ['<rootDir>/test/support/preload-esm.ts'],
  testTimeout: 60_000,
  maxWorkers: 2,
};

export default config;
