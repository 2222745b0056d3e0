import { sharedConfig } from './jest.shared.mjs';

/**
 * Several instances and a read replica (`npm run test:replicas`, RELIABILITY.md "Several
 * instances"): three built service processes on one database running the races, and a real
 * PostgreSQL streaming standby serving the audit query. Figures go to
 * test-results/reliability.json like the reliability suite's.
 */
export default {
  ...sharedConfig,
  roots: ['<rootDir>/test/replicas'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  testTimeout: 300_000,
  // each file starts several servers (three service processes, or two PostgreSQL clusters): one file at a time
  maxWorkers: 1,
};
