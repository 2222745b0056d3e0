/** SQL Server migrations in order. Add each new migration class here. */
export const MSSQL_MIGRATIONS: Array<new () => import('typeorm').MigrationInterface> = [];
