/**
 * What every Jest configuration of the project shares. Nest 12 ships as ES modules only, so Jest
 * runs in its native ESM mode (`--experimental-vm-modules`, see the npm scripts) and ts-jest emits
 * ESM; the harness (test/support) gives each test file its own database.
 * @type {import('jest').Config}
 */
export const sharedConfig = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }],
  },
  testMatch: ['**/*.spec.ts', '**/*.e2e-spec.ts'],
  globalSetup: '<rootDir>/test/support/global-setup.mjs',
  globalTeardown: '<rootDir>/test/support/global-teardown.mjs',
  setupFilesAfterEnv: ['<rootDir>/test/support/preload-esm.ts'],
};
