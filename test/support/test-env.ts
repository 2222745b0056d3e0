/** Environment every test process starts from (a test can override any of it per app). */
export const TEST_ENV_DEFAULTS: Record<string, string> = {
  NODE_ENV: 'test',
  BCRYPT_ROUNDS: '4',
  ADMIN_PASSWORD: 'Admin-Password-For-Tests-1',
  MIGRATIONS_RUN: 'false',
  JOBS_ENABLED: 'false',
  LOG_LEVEL: 'silent',
  DB_POOL_SIZE: '5',
};

export const ADMIN_USERNAME = 'admin';
export const ADMIN_PASSWORD = TEST_ENV_DEFAULTS.ADMIN_PASSWORD as string;
