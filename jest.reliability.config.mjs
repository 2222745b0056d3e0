import { sharedConfig } from './jest.shared.mjs';

/**
 * The reliability and security proof (`npm run test:reliability`, RELIABILITY.md): the suites of
 * test/reliability/. Each prints its figures and appends them to test-results/reliability.json;
 * `node test/reliability/report.mjs` renders that file into RELIABILITY.md.
 */
export default {
  ...sharedConfig,
  roots: ['<rootDir>/test/reliability'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  testTimeout: 300_000,
  // the machine has 2 cores: two suites at a time, the server child processes included
  maxWorkers: 2,
};
