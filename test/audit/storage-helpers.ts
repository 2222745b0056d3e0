import { monthLabel, monthStart } from '../../src/audit/maintenance/storage-policy.js';
import type { EventStore } from '../../src/database/dialects/sql-dialect.js';
import type { TestApp } from '../support/test-app.js';

/**
 * Ways to break (and repair) the audit storage in tests, on either engine. Each returns what the
 * health check should then report.
 */

/** Turns system versioning of a table off or on again. */
export async function setVersioning(t: TestApp, table: string, on: boolean): Promise<void> {
  if (t.engine === 'postgres') {
    await t.query(`ALTER TABLE ${table} ${on ? 'ENABLE' : 'DISABLE'} TRIGGER versioning`);
  } else {
    await t.query(
      on
        ? `ALTER TABLE dbo.${table} SET (SYSTEM_VERSIONING = ON (HISTORY_TABLE = dbo.${table}_history, HISTORY_RETENTION_PERIOD = 10 YEARS))`
        : `ALTER TABLE dbo.${table} SET (SYSTEM_VERSIONING = OFF)`,
    );
  }
}

/** Sets the recorded history retention of a table, in years. */
export async function setRetentionYears(t: TestApp, table: string, years: number): Promise<void> {
  if (t.engine === 'postgres') {
    await t.query(`UPDATE system_versioning SET retention = make_interval(years => $1) WHERE table_name = $2`, [years, table]);
  } else {
    await t.query(`ALTER TABLE dbo.${table} SET (SYSTEM_VERSIONING = ON (HISTORY_RETENTION_PERIOD = ${Number(years)} YEARS))`);
  }
}

/**
 * Removes the partition of `month` (PostgreSQL: detach and drop it). SQL Server's stores share
 * one partition function: the month's closing boundary is merged away, for both stores. Returns
 * the stores that lost the month.
 */
export async function dropMonthPartition(t: TestApp, store: EventStore, month: Date): Promise<EventStore[]> {
  if (t.engine === 'postgres') {
    const name = `${store}_p${monthLabel(month).replace('-', '_')}`;
    await t.query(`ALTER TABLE ${store} DETACH PARTITION ${name}`);
    await t.query(`DROP TABLE ${name}`);
    return [store];
  }
  const [{ pf }] = await t.query(
    `SELECT pf.name AS pf FROM sys.indexes i JOIN sys.partition_schemes ps ON ps.data_space_id = i.data_space_id
       JOIN sys.partition_functions pf ON pf.function_id = ps.function_id WHERE i.object_id = OBJECT_ID($1) AND i.index_id IN (0, 1)`,
    [`dbo.${store}`],
  );
  await t.query(`ALTER PARTITION FUNCTION [${pf}]() MERGE RANGE (CAST($1 AS datetime2(7)))`, [monthStart(month, 1).toISOString().replace('Z', '')]);
  return ['audit_events', 'security_events'];
}

/** Names of the partitions of a store (PostgreSQL relation names; SQL Server boundaries). */
export async function partitionNames(t: TestApp, store: EventStore): Promise<string[]> {
  if (t.engine === 'postgres') {
    return (
      await t.query(`SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass ORDER BY 1`, [
        store,
      ])
    ).map((r) => r.name);
  }
  return (
    await t.query(
      `SELECT CONVERT(varchar(30), CAST(prv.value AS datetime2(0)), 126) AS name FROM sys.indexes i
         JOIN sys.partition_schemes ps ON ps.data_space_id = i.data_space_id
         JOIN sys.partition_range_values prv ON prv.function_id = ps.function_id
        WHERE i.object_id = OBJECT_ID($1) AND i.index_id IN (0, 1) ORDER BY prv.boundary_id`,
      [`dbo.${store}`],
    )
  ).map((r) => r.name);
}
