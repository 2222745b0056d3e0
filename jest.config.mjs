import { sharedConfig } from './jest.shared.mjs';

/** `npm test`: unit specs beside the code and the integration tests of test/ (not the browser, reliability and replicas suites). */
export default {
  ...sharedConfig,
  roots: ['<rootDir>/src', '<rootDir>/test'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '/test/reliability/', '/test/replicas/', '/test/browser/'],
  testTimeout: 60_000,
  maxWorkers: 2,
};
