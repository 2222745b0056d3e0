import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Append-only audit store on SQL Server: the counterpart of
 * migrations/postgres/1763712600000-append-only.ts.
 *
 * The database role `medios_app_role` may read and write the application tables (SELECT, INSERT,
 * UPDATE, DELETE and EXECUTE on schema dbo) but not UPDATE or DELETE `audit_events` and
 * `security_events` (DENY wins over the schema grant) — nor TRUNCATE them (that needs ALTER on the
 * table, which it never gets, and is denied explicitly too). `avisos` is read-only for it. History
 * tables of the temporal tables are immutable while SYSTEM_VERSIONING is ON.
 *
 * The service must connect with a login whose database user is a member of `medios_app_role` and not
 * dbo or a sysadmin, which bypass permission checks: `ALTER ROLE medios_app_role ADD MEMBER <user>` (e.g.
 * the `medios_app` user of deploy/kubernetes). The role's name differs from PostgreSQL's `medios_app`
 * because SQL Server users and roles share one namespace and deployments name their user that.
 * Migrations keep running as the owner. SQL Server has no per-connection role switch: the
 * DATABASE_APP_ROLE setting is PostgreSQL-only.
 *
 * What needs more runs with the owner's rights:
 * - dbo.purge_events / dbo.purge_event_partitions (retention) run WITH EXECUTE AS OWNER and refuse
 *   a cutoff younger than the retention (less 31 days of tolerance for the caller's clock);
 * - dbo.ensure_monthly_partitions (platform migration; SPLIT RANGE needs ALTER ANY DATASPACE) is
 *   signed with a certificate whose user holds that permission, so its body stays as written.
 *   A later ALTER of the procedure drops the signature: sign it again then.
 */
export class AppendOnly1763712600000 implements MigrationInterface {
  name = 'AppendOnly1763712600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      IF DATABASE_PRINCIPAL_ID(N'medios_app_role') IS NULL
        EXEC (N'CREATE ROLE medios_app_role AUTHORIZATION dbo');
    `);
    await q.query(`
      GRANT SELECT, INSERT, UPDATE, DELETE, EXECUTE ON SCHEMA::dbo TO medios_app_role;
      DENY UPDATE, DELETE, ALTER ON OBJECT::dbo.audit_events TO medios_app_role;
      DENY UPDATE, DELETE, ALTER ON OBJECT::dbo.security_events TO medios_app_role;
      DENY INSERT, UPDATE, DELETE ON OBJECT::dbo.avisos TO medios_app_role;
    `);

    await q.query(`
      CREATE OR ALTER PROCEDURE dbo.purge_events
        @store  sysname,
        @cutoff datetime2(7),
        @chunk  int
      WITH EXECUTE AS OWNER
      AS
      BEGIN
        -- Deletes at most @chunk rows of an event store older than @cutoff; returns how many.
        SET NOCOUNT ON;
        IF @store NOT IN (N'audit_events', N'security_events')
          THROW 50011, N'purge_events: @store must be audit_events or security_events', 1;
        IF @cutoff > DATEADD(day, 31, DATEADD(year, CASE @store WHEN N'audit_events' THEN -10 ELSE -5 END, SYSUTCDATETIME()))
          THROW 50012, N'purge_events: the cutoff is younger than the retention', 1;
        DECLARE @deleted int;
        IF @store = N'audit_events'
        BEGIN
          DELETE TOP (@chunk) FROM dbo.audit_events WHERE occurred_at < @cutoff;
          SET @deleted = @@ROWCOUNT;
        END
        ELSE
        BEGIN
          DELETE TOP (@chunk) FROM dbo.security_events WHERE occurred_at < @cutoff;
          SET @deleted = @@ROWCOUNT;
        END;
        SELECT @deleted AS deleted;
      END
    `);

    await q.query(`
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
         WHERE p.object_id = OBJECT_ID(@table) AND p.index_id IN (0, 1) AND p.partition_number < @n AND p.rows > 0;
        IF @list IS NOT NULL
        BEGIN
          SET @sql = N'TRUNCATE TABLE ' + @table + N' WITH (PARTITIONS (' + @list + N'));';
          EXEC sp_executesql @sql;
        END
        SELECT @list AS truncated;
      END
    `);

    // The partition maintenance procedure keeps its body; a certificate signature lends it the one
    // extra permission it needs. The private key exists only during this batch (random password,
    // removed at the end), so nothing else can ever be signed with it.
    await q.query(`
      DECLARE @pw nvarchar(128) = CONVERT(nvarchar(36), NEWID()) + N'-' + CONVERT(nvarchar(36), NEWID()) + N'-Aa1!';
      DECLARE @sql nvarchar(max);
      IF EXISTS (SELECT 1 FROM sys.crypt_properties cp JOIN sys.certificates c ON c.thumbprint = cp.thumbprint
                  WHERE cp.major_id = OBJECT_ID(N'dbo.ensure_monthly_partitions') AND c.name = N'medios_partition_maintenance')
        DROP SIGNATURE FROM dbo.ensure_monthly_partitions BY CERTIFICATE medios_partition_maintenance;
      IF DATABASE_PRINCIPAL_ID(N'medios_partition_maintenance') IS NOT NULL DROP USER medios_partition_maintenance;
      IF EXISTS (SELECT 1 FROM sys.certificates WHERE name = N'medios_partition_maintenance') DROP CERTIFICATE medios_partition_maintenance;
      SET @sql = N'CREATE CERTIFICATE medios_partition_maintenance ENCRYPTION BY PASSWORD = ' + QUOTENAME(@pw, '''') +
                 N' WITH SUBJECT = N''Signs dbo.ensure_monthly_partitions (partition maintenance)'', EXPIRY_DATE = ''99991231'';';
      EXEC (@sql);
      CREATE USER medios_partition_maintenance FROM CERTIFICATE medios_partition_maintenance;
      GRANT ALTER ANY DATASPACE TO medios_partition_maintenance;
      SET @sql = N'ADD SIGNATURE TO dbo.ensure_monthly_partitions BY CERTIFICATE medios_partition_maintenance WITH PASSWORD = ' + QUOTENAME(@pw, '''') + N';';
      EXEC (@sql);
      ALTER CERTIFICATE medios_partition_maintenance REMOVE PRIVATE KEY;
      GRANT EXECUTE ON OBJECT::dbo.ensure_monthly_partitions TO medios_app_role;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      -- a later ALTER of the procedure has already dropped the signature (see the header): DROP SIGNATURE would fail then
      IF EXISTS (SELECT 1 FROM sys.crypt_properties cp JOIN sys.certificates c ON c.thumbprint = cp.thumbprint
                  WHERE cp.major_id = OBJECT_ID(N'dbo.ensure_monthly_partitions') AND c.name = N'medios_partition_maintenance')
        DROP SIGNATURE FROM dbo.ensure_monthly_partitions BY CERTIFICATE medios_partition_maintenance;
      IF DATABASE_PRINCIPAL_ID(N'medios_partition_maintenance') IS NOT NULL DROP USER medios_partition_maintenance;
      IF EXISTS (SELECT 1 FROM sys.certificates WHERE name = N'medios_partition_maintenance') DROP CERTIFICATE medios_partition_maintenance;
      DROP PROCEDURE IF EXISTS dbo.purge_event_partitions;
      DROP PROCEDURE IF EXISTS dbo.purge_events;
      IF DATABASE_PRINCIPAL_ID(N'medios_app_role') IS NOT NULL
      BEGIN
        REVOKE SELECT, INSERT, UPDATE, DELETE, EXECUTE ON SCHEMA::dbo FROM medios_app_role;
        REVOKE UPDATE, DELETE, ALTER ON OBJECT::dbo.audit_events FROM medios_app_role;
        REVOKE UPDATE, DELETE, ALTER ON OBJECT::dbo.security_events FROM medios_app_role;
        REVOKE INSERT, UPDATE, DELETE ON OBJECT::dbo.avisos FROM medios_app_role;
        REVOKE EXECUTE ON OBJECT::dbo.ensure_monthly_partitions FROM medios_app_role;
        -- DROP ROLE fails (Msg 15144) while the role has members: the service's user is one
        DECLARE @drop_members nvarchar(max);
        SELECT @drop_members = STRING_AGG(CONVERT(nvarchar(max), N'ALTER ROLE medios_app_role DROP MEMBER ' + QUOTENAME(m.name) + N';'), N' ')
          FROM sys.database_role_members rm
          JOIN sys.database_principals r ON r.principal_id = rm.role_principal_id
          JOIN sys.database_principals m ON m.principal_id = rm.member_principal_id
         WHERE r.name = N'medios_app_role';
        IF @drop_members IS NOT NULL EXEC sys.sp_executesql @drop_members;
        EXEC (N'DROP ROLE medios_app_role');
      END
    `);
  }
}
