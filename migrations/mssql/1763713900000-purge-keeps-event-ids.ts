import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * dbo.purge_event_partitions (1763712600000-append-only.ts) empties old partitions of an event
 * store with TRUNCATE … WITH (PARTITIONS …). SQL Server resets a table's identity to its seed when
 * TRUNCATE TABLE empties it, and its documentation does not say the partition form is exempt: were
 * it reset, the next events would take ids already handed out, and the seals and their verification,
 * which read the stores by growing id, would break. The procedure now reads the identity before the
 * truncation and, should it have gone back, reseeds it past the last id it had given. The body is
 * otherwise that of 1763712600000. The PostgreSQL counterpart drops partitions, which leaves the
 * sequence as it is, and changes nothing.
 */
export class PurgeKeepsEventIds1763713900000 implements MigrationInterface {
  name = 'PurgeKeepsEventIds1763713900000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(purgeEventPartitions(true));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(purgeEventPartitions(false));
  }
}

/** The procedure as 1763712600000 left it (`keepIds` false) or as this migration makes it. */
function purgeEventPartitions(keepIds: boolean): string {
  const truncate = keepIds
    ? `
        IF @list IS NOT NULL
        BEGIN
          -- the ids must only grow (the seals and their verification rely on it): an identity this
          -- truncation reset to its seed is put back past the last id it had handed out (a gap of
          -- one at most; identities have gaps anyway)
          DECLARE @last bigint = CAST(IDENT_CURRENT(@table) AS bigint);
          SET @sql = N'TRUNCATE TABLE ' + @table + N' WITH (PARTITIONS (' + @list + N'));';
          EXEC sp_executesql @sql;
          IF CAST(IDENT_CURRENT(@table) AS bigint) < @last
          BEGIN
            SET @sql = N'DBCC CHECKIDENT (N''' + @table + N''', RESEED, ' + CAST(@last + 1 AS nvarchar(20)) + N') WITH NO_INFOMSGS;';
            EXEC sp_executesql @sql;
          END
        END`
    : `
        IF @list IS NOT NULL
        BEGIN
          SET @sql = N'TRUNCATE TABLE ' + @table + N' WITH (PARTITIONS (' + @list + N'));';
          EXEC sp_executesql @sql;
        END`;
  return `
      CREATE OR ALTER PROCEDURE dbo.purge_event_partitions
        @store  sysname,
        @cutoff datetime2(7)
      WITH EXECUTE AS OWNER
      AS
      BEGIN
        -- Empties (TRUNCATE … WITH (PARTITIONS …)) every non-empty partition numbered below the one
        -- that holds @cutoff; the boundaries stay (the partition function is shared by both stores).
        -- Returns the partition numbers emptied, comma-separated, or NULL.
        SET NOCOUNT ON;
        IF @store NOT IN (N'audit_events', N'security_events')
          THROW 50013, N'purge_event_partitions: @store must be audit_events or security_events', 1;
        IF @cutoff > DATEADD(day, 31, DATEADD(year, CASE @store WHEN N'audit_events' THEN -10 ELSE -5 END, SYSUTCDATETIME()))
          THROW 50014, N'purge_event_partitions: the cutoff is younger than the retention', 1;
        DECLARE @table nvarchar(256) = N'dbo.' + QUOTENAME(@store);
        DECLARE @pf sysname, @n int, @list nvarchar(max), @sql nvarchar(max);
        SELECT @pf = pf.name
          FROM sys.indexes i
          JOIN sys.partition_schemes ps ON ps.data_space_id = i.data_space_id
          JOIN sys.partition_functions pf ON pf.function_id = ps.function_id
         WHERE i.object_id = OBJECT_ID(@table) AND i.index_id IN (0, 1);
        IF @pf IS NULL THROW 51001, N'the event store is not partitioned', 1;
        SET @sql = N'SELECT @n = $PARTITION.' + QUOTENAME(@pf) + N'(@cutoff);';
        EXEC sp_executesql @sql, N'@cutoff datetime2(7), @n int OUTPUT', @cutoff = @cutoff, @n = @n OUTPUT;
        SELECT @list = STRING_AGG(CAST(p.partition_number AS nvarchar(10)), N',') WITHIN GROUP (ORDER BY p.partition_number)
          FROM sys.partitions p
         WHERE p.object_id = OBJECT_ID(@table) AND p.index_id IN (0, 1) AND p.partition_number < @n AND p.rows > 0;${truncate}
        SELECT @list AS truncated;
      END
`;
}
