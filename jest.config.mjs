import { sharedConfig } from './jest.shared.mjs';

/** `npm test`: unit specs beside the code and the integration tests of test/ (not the browser and reliability suites). */
export default {
  ...sharedConfig,
  roots: ['<rootDir>/src', '<rootDir>/test'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '/test/reliability/', '/test/browser/'],
  testTimeout: 60_000,
  maxWorkers: 2,
};
