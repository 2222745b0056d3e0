-- First-deployment setup of a SQL Server for the service, run once as a server administrator
-- (sysadmin) with sqlcmd: docker-compose.yml's mssql-init step runs it; docs/sqlserver.md walks
-- through the same steps by hand. Safe to run again (every step checks first).
--
--   sqlcmd -S <server> -U sa -C -b -i deploy/sqlserver/init.sql \
--     -v DATABASE=medios OWNER_PASSWORD="…" APP_PASSWORD="…"
--
-- Passwords are sqlcmd variables written inside N'…': they must not contain a single quote.
--
-- After it: run the migrations with the owner login (mssql://medios_owner:…@host/medios), then
-- start the service with the restricted login (mssql://medios_svc:…@host/medios) and
-- MIGRATIONS_RUN=false.
:on error exit

IF DB_ID(N'$(DATABASE)') IS NULL
  CREATE DATABASE [$(DATABASE)];
GO

-- Readers do not block writers (as on PostgreSQL): without it the service's check-then-insert
-- flows can deadlock under load. Needs a moment with no other connection to the database.
IF NOT EXISTS (SELECT 1 FROM sys.databases WHERE name = N'$(DATABASE)' AND is_read_committed_snapshot_on = 1)
  ALTER DATABASE [$(DATABASE)] SET READ_COMMITTED_SNAPSHOT ON WITH ROLLBACK IMMEDIATE;
-- SQL Server's background task deletes temporal history past HISTORY_RETENTION_PERIOD only while ON
ALTER DATABASE [$(DATABASE)] SET TEMPORAL_HISTORY_RETENTION ON;
GO

-- medios_owner runs the migrations; medios_svc is the service, never more than medios_app_role
IF SUSER_ID(N'medios_owner') IS NULL
  CREATE LOGIN medios_owner WITH PASSWORD = N'$(OWNER_PASSWORD)', DEFAULT_DATABASE = [$(DATABASE)];
ELSE
  ALTER LOGIN medios_owner WITH PASSWORD = N'$(OWNER_PASSWORD)';
IF SUSER_ID(N'medios_svc') IS NULL
  CREATE LOGIN medios_svc WITH PASSWORD = N'$(APP_PASSWORD)', DEFAULT_DATABASE = [$(DATABASE)];
ELSE
  ALTER LOGIN medios_svc WITH PASSWORD = N'$(APP_PASSWORD)';
GO

USE [$(DATABASE)];
GO

IF DATABASE_PRINCIPAL_ID(N'medios_owner') IS NULL
  CREATE USER medios_owner FOR LOGIN medios_owner;
ALTER ROLE db_owner ADD MEMBER medios_owner;

IF DATABASE_PRINCIPAL_ID(N'medios_svc') IS NULL
  CREATE USER medios_svc FOR LOGIN medios_svc;
-- The restricted role belongs to the migrations (migrations/mssql/1763712600000-append-only.ts
-- creates it when missing and grants and denies its rights); creating it here, the same way, lets
-- the service's user join it before the first migration runs.
IF DATABASE_PRINCIPAL_ID(N'medios_app_role') IS NULL
  CREATE ROLE medios_app_role AUTHORIZATION dbo;
ALTER ROLE medios_app_role ADD MEMBER medios_svc;
GO

-- What was set up (the runbook's verification queries in docs/sqlserver.md read the rest)
SELECT name, is_read_committed_snapshot_on, is_temporal_history_retention_enabled
  FROM sys.databases WHERE name = DB_NAME();
SELECT r.name AS role_name, m.name AS member_name
  FROM sys.database_role_members rm
  JOIN sys.database_principals r ON r.principal_id = rm.role_principal_id
  JOIN sys.database_principals m ON m.principal_id = rm.member_principal_id
 WHERE m.name IN (N'medios_owner', N'medios_svc')
 ORDER BY r.name, m.name;
GO
