import { sharedConfig } from './jest.shared.mjs';

/** `npm run test:browser`: the tests that drive a real browser (Debian's chromium through playwright-core). */
export default {
  ...sharedConfig,
  roots: ['<rootDir>/test/browser'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  testTimeout: 120_000,
  maxWorkers: 1,
};
