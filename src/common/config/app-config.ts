import { type AuditConfig, AUDIT_SETTINGS, auditConfig } from './audit.config.js';
import { type AuthConfig, AUTH_SETTINGS, authConfig } from './auth.config.js';
import { type CatalogConfig, CATALOG_SETTINGS, catalogConfig } from './catalog.config.js';
import { type DatabaseConfig, DATABASE_SETTINGS, databaseConfig } from './database.config.js';
import { type ObservabilityConfig, OBSERVABILITY_SETTINGS, observabilityConfig } from './observability.config.js';
import { type ServerConfig, SERVER_SETTINGS, serverConfig } from './server.config.js';
import { oneOf, type ReadContext, type Setting, settingsOf } from './settings.js';

const NODE_ENVS = ['development', 'production', 'test'] as const;
export type NodeEnv = (typeof NODE_ENVS)[number];
const NODE_ENV = oneOf('NODE_ENV', NODE_ENVS, { default: 'development' });

/**
 * The validated, typed configuration the rest of the code reads (never `process.env`), one part
 * per concern; each part's file declares its settings (variable, validation, type, default) once.
 */
export interface AppConfig extends ServerConfig, ObservabilityConfig, DatabaseConfig, AuthConfig, AuditConfig, CatalogConfig {
  nodeEnv: NodeEnv;
}

/**
 * Every setting the service reads (README.md "Configuration" and .env.example document each
 * variable). Validated once at boot; a bad value stops the process with a message that names
 * the variable and its expected form.
 */
export const ALL_SETTINGS: ReadonlyArray<Setting<unknown>> = [
  NODE_ENV,
  ...[SERVER_SETTINGS, OBSERVABILITY_SETTINGS, DATABASE_SETTINGS, AUTH_SETTINGS, AUDIT_SETTINGS, CATALOG_SETTINGS].flatMap(settingsOf),
];

export class ConfigValidationError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigValidationError';
  }
}

/** Parses and validates an environment; throws ConfigValidationError naming each bad variable. */
export function loadAppConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const problems: string[] = [];
  const nodeEnv = NODE_ENV.read({ env, nodeEnv: 'development', problems });
  const ctx: ReadContext = { env, nodeEnv, problems };
  const config: AppConfig = {
    nodeEnv,
    ...serverConfig(ctx),
    ...observabilityConfig(ctx),
    ...databaseConfig(ctx),
    ...authConfig(ctx),
    ...auditConfig(ctx),
    ...catalogConfig(ctx),
  };
  if (config.metricsPort !== 0 && config.metricsPort === config.port)
    problems.push(`METRICS_PORT must differ from PORT (both ${config.port}): the metrics have a listener of their own, or 0 for none`);
  if (problems.length) throw new ConfigValidationError(problems);
  return config;
}
