import type { MigrationInterface } from 'typeorm';
import { MSSQL_MIGRATIONS } from '../../migrations/mssql/index.js';
import { POSTGRES_MIGRATIONS } from '../../migrations/postgres/index.js';
import type { Engine } from './database-url.js';

export function migrationsFor(engine: Engine): Array<new () => MigrationInterface> {
  return engine === 'mssql' ? MSSQL_MIGRATIONS : POSTGRES_MIGRATIONS;
}
