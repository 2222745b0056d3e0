import { Transform, plainToInstance } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, ValidationError, validateSync } from 'class-validator';
import { resolve } from 'node:path';

const toInt = ({ value }: { value: unknown }) => (typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : value);
const toBool = ({ value }: { value: unknown }) => {
  if (typeof value !== 'string') return value;
  const v = value.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(v)) return true;
  if (['false', '0', 'no', 'off'].includes(v)) return false;
  return value;
};
const emptyToUndefined = ({ value }: { value: unknown }) => (typeof value === 'string' && value.trim() === '' ? undefined : value);

/**
 * Every environment variable the service reads (README.md "Configuration" plus the
 * operational ones). Validated once at boot; a bad value stops the process with a message
 * that names the variable and its expected form.
 */
export class EnvironmentVariables {
  @IsOptional()
  @IsIn(['development', 'production', 'test'], { message: 'NODE_ENV must be one of development, production, test' })
  NODE_ENV?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'PORT must be an integer from 0 to 65535' })
  @Min(0, { message: 'PORT must be an integer from 0 to 65535' })
  @Max(65535, { message: 'PORT must be an integer from 0 to 65535' })
  PORT?: number;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  HOST?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'METRICS_PORT must be an integer from 0 to 65535 (0 disables the metrics listener)' })
  @Min(0, { message: 'METRICS_PORT must be an integer from 0 to 65535 (0 disables the metrics listener)' })
  @Max(65535, { message: 'METRICS_PORT must be an integer from 0 to 65535 (0 disables the metrics listener)' })
  METRICS_PORT?: number;

  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^(postgres|postgresql|mssql|sqlserver):\/\/.+/, {
    message: 'DATABASE_URL must be a postgres://user:pass@host:port/db or mssql://user:pass@host:port/db URL (sqlserver:// too)',
  })
  DATABASE_URL?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^(postgres|postgresql|mssql|sqlserver):\/\/.+/, {
    message: 'DATABASE_READ_URL must be a postgres://… or mssql://… URL of a read replica of DATABASE_URL (same engine), or empty',
  })
  DATABASE_READ_URL?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'DATABASE_READ_MAX_LAG_SECONDS must be an integer number of seconds from 0 to 86400' })
  @Min(0, { message: 'DATABASE_READ_MAX_LAG_SECONDS must be an integer number of seconds from 0 to 86400' })
  @Max(86400, { message: 'DATABASE_READ_MAX_LAG_SECONDS must be an integer number of seconds from 0 to 86400' })
  DATABASE_READ_MAX_LAG_SECONDS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'DB_READ_POOL_SIZE must be an integer from 1 to 200' })
  @Min(1, { message: 'DB_READ_POOL_SIZE must be an integer from 1 to 200' })
  @Max(200, { message: 'DB_READ_POOL_SIZE must be an integer from 1 to 200' })
  DB_READ_POOL_SIZE?: number;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  DATA_DIR?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  ADMIN_PASSWORD?: string;

  @IsOptional() @Transform(emptyToUndefined) @IsString() JWT_PRIVATE_KEY?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() JWT_PUBLIC_KEY?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() JWT_PRIVATE_KEY_FILE?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() JWT_PUBLIC_KEY_FILE?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() JWT_ISSUER?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() JWT_AUDIENCE?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'JWT_ACCESS_TTL_SECONDS must be an integer number of seconds from 30 to 86400' })
  @Min(30, { message: 'JWT_ACCESS_TTL_SECONDS must be an integer number of seconds from 30 to 86400' })
  @Max(86400, { message: 'JWT_ACCESS_TTL_SECONDS must be an integer number of seconds from 30 to 86400' })
  JWT_ACCESS_TTL_SECONDS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'REFRESH_TOKEN_DAYS must be an integer number of days from 1 to 365' })
  @Min(1, { message: 'REFRESH_TOKEN_DAYS must be an integer number of days from 1 to 365' })
  @Max(365, { message: 'REFRESH_TOKEN_DAYS must be an integer number of days from 1 to 365' })
  REFRESH_TOKEN_DAYS?: number;

  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9_\-, ]*$/, { message: 'AUDIT_SANITIZE_KEYS must be a comma-separated list of key names' })
  AUDIT_SANITIZE_KEYS?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'RUBROS_MAX_DEPTH must be an integer from 1 to 50' })
  @Min(1, { message: 'RUBROS_MAX_DEPTH must be an integer from 1 to 50' })
  @Max(50, { message: 'RUBROS_MAX_DEPTH must be an integer from 1 to 50' })
  RUBROS_MAX_DEPTH?: number;

  @IsOptional()
  @Transform(toBool)
  @IsBoolean({ message: 'JOBS_ENABLED must be true or false' })
  JOBS_ENABLED?: boolean;

  @IsOptional()
  @Transform(toBool)
  @IsBoolean({ message: 'MIGRATIONS_RUN must be true or false' })
  MIGRATIONS_RUN?: boolean;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'LOGIN_MAX_FAILURES_PER_USER must be an integer from 1 to 10000' })
  @Min(1, { message: 'LOGIN_MAX_FAILURES_PER_USER must be an integer from 1 to 10000' })
  @Max(10000, { message: 'LOGIN_MAX_FAILURES_PER_USER must be an integer from 1 to 10000' })
  LOGIN_MAX_FAILURES_PER_USER?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'LOGIN_MAX_FAILURES_PER_IP must be an integer from 1 to 100000' })
  @Min(1, { message: 'LOGIN_MAX_FAILURES_PER_IP must be an integer from 1 to 100000' })
  @Max(100000, { message: 'LOGIN_MAX_FAILURES_PER_IP must be an integer from 1 to 100000' })
  LOGIN_MAX_FAILURES_PER_IP?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'LOGIN_MAX_FAILURES_PER_USER_GLOBAL must be an integer from 1 to 100000' })
  @Min(1, { message: 'LOGIN_MAX_FAILURES_PER_USER_GLOBAL must be an integer from 1 to 100000' })
  @Max(100000, { message: 'LOGIN_MAX_FAILURES_PER_USER_GLOBAL must be an integer from 1 to 100000' })
  LOGIN_MAX_FAILURES_PER_USER_GLOBAL?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'LOGIN_WINDOW_SECONDS must be an integer number of seconds from 1 to 86400' })
  @Min(1, { message: 'LOGIN_WINDOW_SECONDS must be an integer number of seconds from 1 to 86400' })
  @Max(86400, { message: 'LOGIN_WINDOW_SECONDS must be an integer number of seconds from 1 to 86400' })
  LOGIN_WINDOW_SECONDS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'BCRYPT_ROUNDS must be an integer from 4 to 15' })
  @Min(4, { message: 'BCRYPT_ROUNDS must be an integer from 4 to 15' })
  @Max(15, { message: 'BCRYPT_ROUNDS must be an integer from 4 to 15' })
  BCRYPT_ROUNDS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'PASSWORD_QUEUE_MAX must be an integer from 1 to 10000' })
  @Min(1, { message: 'PASSWORD_QUEUE_MAX must be an integer from 1 to 10000' })
  @Max(10000, { message: 'PASSWORD_QUEUE_MAX must be an integer from 1 to 10000' })
  PASSWORD_QUEUE_MAX?: number;

  @IsOptional()
  @IsString()
  @Matches(/^[^\s,]*(\s*,\s*[^\s,]+)*\s*$/, { message: 'CORS_ORIGINS must be a comma-separated list of origins, e.g. https://admin.example.com' })
  CORS_ORIGINS?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  TRUST_PROXY?: string;

  @IsOptional()
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
    message: 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
  })
  LOG_LEVEL?: string;

  @IsOptional()
  @Transform(toBool)
  @IsBoolean({ message: 'LOG_PRETTY must be true or false' })
  LOG_PRETTY?: boolean;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'AUDIT_FRESHNESS_HOURS must be an integer number of hours from 1 to 8760' })
  @Min(1, { message: 'AUDIT_FRESHNESS_HOURS must be an integer number of hours from 1 to 8760' })
  @Max(8760, { message: 'AUDIT_FRESHNESS_HOURS must be an integer number of hours from 1 to 8760' })
  AUDIT_FRESHNESS_HOURS?: number;

  @IsOptional() @Transform(emptyToUndefined) @IsString() AUDIT_SIGNING_KEY?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() AUDIT_SIGNING_KEY_FILE?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() AUDIT_VERIFY_KEYS?: string;
  @IsOptional() @Transform(emptyToUndefined) @IsString() AUDIT_VERIFY_KEYS_FILE?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'AUDIT_SEAL_MINUTES must be an integer number of minutes from 1 to 1440' })
  @Min(1, { message: 'AUDIT_SEAL_MINUTES must be an integer number of minutes from 1 to 1440' })
  @Max(1440, { message: 'AUDIT_SEAL_MINUTES must be an integer number of minutes from 1 to 1440' })
  AUDIT_SEAL_MINUTES?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'DB_POOL_SIZE must be an integer from 1 to 200' })
  @Min(1, { message: 'DB_POOL_SIZE must be an integer from 1 to 200' })
  @Max(200, { message: 'DB_POOL_SIZE must be an integer from 1 to 200' })
  DB_POOL_SIZE?: number;

  @IsOptional()
  @IsString()
  @Matches(/^([a-z_][a-z0-9_]{0,62})?$/, {
    message: 'DATABASE_APP_ROLE must be a plain lower-case role name (e.g. medios_app), or empty to connect without switching role',
  })
  DATABASE_APP_ROLE?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'DB_STATEMENT_TIMEOUT_MS must be an integer number of milliseconds from 100 to 600000' })
  @Min(100, { message: 'DB_STATEMENT_TIMEOUT_MS must be an integer number of milliseconds from 100 to 600000' })
  @Max(600000, { message: 'DB_STATEMENT_TIMEOUT_MS must be an integer number of milliseconds from 100 to 600000' })
  DB_STATEMENT_TIMEOUT_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'DB_MAINTENANCE_TIMEOUT_MS must be an integer number of milliseconds from 120000 to 86400000' })
  @Min(120000, { message: 'DB_MAINTENANCE_TIMEOUT_MS must be an integer number of milliseconds from 120000 to 86400000' })
  @Max(86400000, { message: 'DB_MAINTENANCE_TIMEOUT_MS must be an integer number of milliseconds from 120000 to 86400000' })
  DB_MAINTENANCE_TIMEOUT_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'SHUTDOWN_TIMEOUT_MS must be an integer number of milliseconds from 0 to 120000' })
  @Min(0, { message: 'SHUTDOWN_TIMEOUT_MS must be an integer number of milliseconds from 0 to 120000' })
  @Max(120000, { message: 'SHUTDOWN_TIMEOUT_MS must be an integer number of milliseconds from 0 to 120000' })
  SHUTDOWN_TIMEOUT_MS?: number;
}

export type NodeEnv = 'development' | 'production' | 'test';

/** The validated, typed configuration the rest of the code reads (never `process.env`). */
export interface AppConfig {
  nodeEnv: NodeEnv;
  port: number;
  host: string;
  /** port of the Prometheus listener (GET /metrics), on `host`; 0: no listener */
  metricsPort: number;
  databaseUrl: string | undefined;
  dataDir: string;
  adminPassword: string | undefined;
  jwt: {
    privateKeyPem: string | undefined;
    publicKeyPem: string | undefined;
    issuer: string;
    audience: string;
    accessTtlSeconds: number;
  };
  refreshTokenDays: number;
  auditSanitizeKeys: string[];
  auditFreshnessHours: number;
  auditSeal: {
    /** Ed25519 private key (PEM) that signs the seals; unset: generated into DATA_DIR (not in production) */
    signingKeyPem: string | undefined;
    /** older public keys (PEM blocks) that still verify seals signed before a rotation */
    verifyKeysPem: string | undefined;
    /** how often the audit-seal job runs */
    minutes: number;
  };
  rubrosMaxDepth: number;
  jobsEnabled: boolean;
  migrationsRun: boolean;
  login: {
    /** failures per (existing username, client IP) */
    maxFailuresPerUser: number;
    /** failures per existing username, from any IP */
    maxFailuresPerUserGlobal: number;
    maxFailuresPerIp: number;
    windowSeconds: number;
  };
  bcryptRounds: number;
  /** password operations (bcrypt hash or compare, strength check) that may wait for their turn; beyond, 503 */
  passwordQueueMax: number;
  corsOrigins: string[];
  trustProxy: boolean | string;
  logLevel: string;
  logPretty: boolean;
  db: {
    poolSize: number;
    statementTimeoutMs: number;
    /**
     * Timeout of the partition maintenance statement (SQL Server: dbo.ensure_monthly_partitions,
     * whose SPLIT moves the rows that landed in the open last partition and may wait up to 60 s
     * for the maintenance lock): far above statementTimeoutMs, which would cancel it every run.
     */
    maintenanceTimeoutMs: number;
    /**
     * PostgreSQL role the service's pool switches to on every connection (`-c role=…`): the
     * restricted `medios_app` (append-only audit store, migrations/postgres/1763712600000-append-only.ts).
     * Empty: no switch (the login is already restricted, or tests that need the owner). Migrations
     * and the CLI's admin connections never switch.
     */
    appRole: string;
  };
  /**
   * The read replica (DATABASE_READ_URL) that serves the audit query and the large paged lists,
   * or undefined: everything reads the primary. docs/operations.md "Scaling out".
   */
  readReplica:
    | {
        url: string;
        /** beyond this lag (or when it cannot be measured) those reads go to the primary */
        maxLagSeconds: number;
        poolSize: number;
      }
    | undefined;
  shutdownTimeoutMs: number;
}

export class ConfigValidationError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigValidationError';
  }
}

function flatten(errors: ValidationError[]): string[] {
  return errors.flatMap((e) => {
    const got = typeof e.value === 'string' ? ` (got "${e.property.includes('PASSWORD') || e.property.includes('KEY') ? '***' : e.value}")` : '';
    return Object.values(e.constraints ?? {}).map((m) => `${m}${got}`);
  });
}

const list = (v: string | undefined) =>
  (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** Parses and validates an environment; throws ConfigValidationError naming each bad variable. */
export function loadAppConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const vars = plainToInstance(EnvironmentVariables, { ...env });
  const problems = flatten(validateSync(vars, { skipMissingProperties: false, forbidUnknownValues: false }));
  const nodeEnv = (vars.NODE_ENV ?? 'development') as NodeEnv;

  const privateKeyPem = vars.JWT_PRIVATE_KEY ?? readOptionalFile(vars.JWT_PRIVATE_KEY_FILE, 'JWT_PRIVATE_KEY_FILE', problems);
  const publicKeyPem = vars.JWT_PUBLIC_KEY ?? readOptionalFile(vars.JWT_PUBLIC_KEY_FILE, 'JWT_PUBLIC_KEY_FILE', problems);

  if (nodeEnv === 'production') {
    if (!vars.DATABASE_URL)
      problems.push('DATABASE_URL is required when NODE_ENV=production (postgres://… or mssql://…); the embedded database is for development only');
    if (!privateKeyPem || !publicKeyPem)
      problems.push('JWT_PRIVATE_KEY and JWT_PUBLIC_KEY (PEM, or JWT_PRIVATE_KEY_FILE / JWT_PUBLIC_KEY_FILE) are required when NODE_ENV=production');
  }
  const auditSigningKeyPem = vars.AUDIT_SIGNING_KEY ?? readOptionalFile(vars.AUDIT_SIGNING_KEY_FILE, 'AUDIT_SIGNING_KEY_FILE', problems);
  const auditVerifyKeysPem = vars.AUDIT_VERIFY_KEYS ?? readOptionalFile(vars.AUDIT_VERIFY_KEYS_FILE, 'AUDIT_VERIFY_KEYS_FILE', problems);
  if (nodeEnv === 'production' && !auditSigningKeyPem)
    problems.push('AUDIT_SIGNING_KEY (PEM, Ed25519, or AUDIT_SIGNING_KEY_FILE) is required when NODE_ENV=production');
  if (auditSigningKeyPem) checkEd25519PrivateKey(auditSigningKeyPem, problems);
  if (auditVerifyKeysPem) checkEd25519PublicKeys(auditVerifyKeysPem, problems);
  if ((privateKeyPem && !publicKeyPem) || (!privateKeyPem && publicKeyPem))
    problems.push('JWT_PRIVATE_KEY and JWT_PUBLIC_KEY must be given together (PEM, RS256, 2048 bits or more)');
  if (privateKeyPem && publicKeyPem) checkRsaKeyPair(privateKeyPem, publicKeyPem, problems);

  if (vars.DATABASE_READ_URL) {
    if (!vars.DATABASE_URL)
      problems.push('DATABASE_READ_URL needs DATABASE_URL: a read replica replicates the primary of DATABASE_URL, never the embedded database');
    else if (engineOfScheme(vars.DATABASE_READ_URL) !== engineOfScheme(vars.DATABASE_URL))
      problems.push('DATABASE_READ_URL must use the engine of DATABASE_URL (a replica of the same database)');
  }
  if (problems.length) throw new ConfigValidationError(problems);

  const isTest = nodeEnv === 'test';
  return {
    nodeEnv,
    port: vars.PORT ?? 3000,
    host: vars.HOST ?? '0.0.0.0',
    // tests run many applications in one process: no listener unless a test asks for one
    metricsPort: vars.METRICS_PORT ?? (isTest ? 0 : 9464),
    databaseUrl: vars.DATABASE_URL,
    dataDir: resolve(vars.DATA_DIR ?? './.data'),
    adminPassword: vars.ADMIN_PASSWORD,
    jwt: {
      privateKeyPem,
      publicKeyPem,
      issuer: vars.JWT_ISSUER ?? 'medios-admin-api',
      audience: vars.JWT_AUDIENCE ?? 'medios-admin',
      accessTtlSeconds: vars.JWT_ACCESS_TTL_SECONDS ?? 900,
    },
    refreshTokenDays: vars.REFRESH_TOKEN_DAYS ?? 7,
    auditSanitizeKeys: list(vars.AUDIT_SANITIZE_KEYS),
    auditFreshnessHours: vars.AUDIT_FRESHNESS_HOURS ?? 24,
    auditSeal: { signingKeyPem: auditSigningKeyPem, verifyKeysPem: auditVerifyKeysPem, minutes: vars.AUDIT_SEAL_MINUTES ?? 5 },
    rubrosMaxDepth: vars.RUBROS_MAX_DEPTH ?? 10,
    jobsEnabled: isTest ? false : (vars.JOBS_ENABLED ?? true),
    migrationsRun: vars.MIGRATIONS_RUN ?? true,
    login: {
      maxFailuresPerUser: vars.LOGIN_MAX_FAILURES_PER_USER ?? 10,
      maxFailuresPerUserGlobal: vars.LOGIN_MAX_FAILURES_PER_USER_GLOBAL ?? 100,
      maxFailuresPerIp: vars.LOGIN_MAX_FAILURES_PER_IP ?? 50,
      windowSeconds: vars.LOGIN_WINDOW_SECONDS ?? 900,
    },
    bcryptRounds: vars.BCRYPT_ROUNDS ?? 12,
    passwordQueueMax: vars.PASSWORD_QUEUE_MAX ?? 64,
    corsOrigins: list(vars.CORS_ORIGINS),
    trustProxy: parseTrustProxy(vars.TRUST_PROXY),
    logLevel: vars.LOG_LEVEL ?? (isTest ? 'silent' : 'info'),
    logPretty: vars.LOG_PRETTY ?? false,
    db: {
      poolSize: vars.DB_POOL_SIZE ?? 10,
      statementTimeoutMs: vars.DB_STATEMENT_TIMEOUT_MS ?? 15000,
      maintenanceTimeoutMs: vars.DB_MAINTENANCE_TIMEOUT_MS ?? 1_800_000,
      // tests connect as the owner by default (their fixtures write raw SQL); the reliability suite sets it
      appRole: vars.DATABASE_APP_ROLE ?? (isTest ? '' : 'medios_app'),
    },
    shutdownTimeoutMs: vars.SHUTDOWN_TIMEOUT_MS ?? 10000,
    readReplica: vars.DATABASE_READ_URL
      ? {
          url: vars.DATABASE_READ_URL,
          maxLagSeconds: vars.DATABASE_READ_MAX_LAG_SECONDS ?? 30,
          poolSize: vars.DB_READ_POOL_SIZE ?? vars.DB_POOL_SIZE ?? 10,
        }
      : undefined,
  };
}

function engineOfScheme(url: string): 'postgres' | 'mssql' {
  return /^postgres/i.test(url) ? 'postgres' : 'mssql';
}

function parseTrustProxy(v: string | undefined): boolean | string {
  if (v === undefined) return false;
  const low = v.trim().toLowerCase();
  if (low === 'true') return true;
  if (low === 'false') return false;
  return v; // a comma-separated list of addresses/CIDRs, passed to fastify's trustProxy
}

import { createPrivateKey, createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';

function readOptionalFile(path: string | undefined, name: string, problems: string[]): string | undefined {
  if (!path) return undefined;
  try {
    return readFileSync(path, 'utf8');
  } catch {
    problems.push(`${name} must name a readable PEM file (could not read ${path})`);
    return undefined;
  }
}

function checkRsaKeyPair(privatePem: string, publicPem: string, problems: string[]): void {
  try {
    const priv = createPrivateKey(privatePem);
    const pub = createPublicKey(publicPem);
    if (priv.asymmetricKeyType !== 'rsa' || pub.asymmetricKeyType !== 'rsa') {
      problems.push('JWT_PRIVATE_KEY / JWT_PUBLIC_KEY must be RSA keys (RS256)');
      return;
    }
    if ((priv.asymmetricKeyDetails?.modulusLength ?? 0) < 2048) problems.push('JWT_PRIVATE_KEY must be an RSA key of 2048 bits or more');
    const derived = createPublicKey(priv).export({ format: 'jwk' });
    const given = pub.export({ format: 'jwk' });
    if (derived.n !== given.n) problems.push('JWT_PUBLIC_KEY does not match JWT_PRIVATE_KEY');
  } catch {
    problems.push('JWT_PRIVATE_KEY / JWT_PUBLIC_KEY must be PEM-encoded RSA keys (placeholders are refused)');
  }
}

function checkEd25519PrivateKey(pem: string, problems: string[]): void {
  try {
    if (createPrivateKey(pem).asymmetricKeyType !== 'ed25519') problems.push('AUDIT_SIGNING_KEY must be an Ed25519 private key (PEM)');
  } catch {
    problems.push('AUDIT_SIGNING_KEY must be a PEM-encoded Ed25519 private key (placeholders are refused)');
  }
}

function checkEd25519PublicKeys(pem: string, problems: string[]): void {
  const blocks = pem.match(/-----BEGIN [A-Z ]+-----[\s\S]+?-----END [A-Z ]+-----/g) ?? [];
  if (!blocks.length) problems.push('AUDIT_VERIFY_KEYS must hold PEM-encoded Ed25519 public keys');
  for (const block of blocks) {
    try {
      if (createPublicKey(block).asymmetricKeyType !== 'ed25519') problems.push('AUDIT_VERIFY_KEYS must hold Ed25519 keys only');
    } catch {
      problems.push('AUDIT_VERIFY_KEYS must hold PEM-encoded Ed25519 public keys');
    }
  }
}
