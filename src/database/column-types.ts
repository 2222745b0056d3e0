import type { ColumnType, ValueTransformer } from 'typeorm';
import { engineOf } from './database-url.js';

/**
 * Column types that differ between the engines. The engine is fixed for the life of the process
 * (DATABASE_URL, or the embedded PostgreSQL when unset), so entity metadata is decided once.
 * The schema itself comes from migrations; these types only steer TypeORM's value conversion.
 */
const engine = engineOfEnvironment(process.env.DATABASE_URL);

/** The engine of DATABASE_URL; PostgreSQL when unset or malformed (the configuration check reports that, with exit 78, before any entity is used). */
function engineOfEnvironment(url: string | undefined): 'postgres' | 'mssql' {
  try {
    return url ? engineOf(url) : 'postgres';
  } catch {
    return 'postgres';
  }
}

/** UTC timestamp: timestamptz on PostgreSQL, datetime2 on SQL Server. */
export const TIMESTAMP: ColumnType = engine === 'mssql' ? 'datetime2' : 'timestamptz';

/** Boolean: boolean on PostgreSQL, bit on SQL Server. */
export const BOOLEAN: ColumnType = engine === 'mssql' ? 'bit' : 'boolean';

/**
 * A calendar date (`yyyy-MM-dd` strings in and out, whatever the process's time zone).
 * PostgreSQL: TypeORM's `date` type already does. SQL Server: TypeORM would turn the string into a
 * local-midnight JS Date and tedious sends (and reads) dates in UTC, which shifts the day when the
 * process does not run in UTC; there the column is mapped as varchar (SQL Server converts the ISO
 * string to `date` itself) and the Date tedious returns is read with UTC getters.
 */
export const CALENDAR_DATE: ColumnType = engine === 'mssql' ? 'varchar' : 'date';
export const calendarDateTransformer: ValueTransformer = {
  to: (value: unknown) => value,
  from: (value: unknown) => (value instanceof Date ? value.toISOString().slice(0, 10) : value),
};

/** Stores a JSON document as text (jsonb/nvarchar(max) accept it) and always yields parsed values. */
export const jsonTransformer: ValueTransformer = {
  to: (value: unknown) => (value === undefined ? undefined : value === null ? null : JSON.stringify(value)),
  from: (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : (value ?? null)),
};

/** bigint columns: both drivers hand them over as strings; the values stay far below 2^53, so the API shows JSON numbers. */
export const bigintTransformer: ValueTransformer = {
  to: (value: unknown) => value,
  from: (value: unknown) => (value === null ? null : Number(value)),
};

/** Exact decimals travel as strings in both drivers; the API exposes them as JSON numbers. */
export const decimalTransformer: ValueTransformer = {
  to: (value: unknown) => (value === undefined || value === null ? value : String(value)),
  from: (value: unknown) => (value === null || value === undefined ? null : Number(value)),
};
