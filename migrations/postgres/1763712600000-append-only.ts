import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Append-only audit store. The service's pool switches to the restricted role
 * `medios_app` on every connection (`-c role=medios_app`, DATABASE_APP_ROLE); migrations and the
 * CLI's admin connections keep the owner login that runs this migration.
 *
 * `medios_app` (NOLOGIN group role; roles are cluster-wide in PostgreSQL, so it is created once and
 * reused by every database of the cluster) may:
 * - read and write the application tables (SELECT, INSERT, UPDATE, DELETE, also on the tables
 *   later migrations create: ALTER DEFAULT PRIVILEGES), use their sequences;
 * - only INSERT and SELECT on `audit_events` and `security_events` — no UPDATE, DELETE, TRUNCATE —
 *   and nothing at all on their partitions directly;
 * - only INSERT and SELECT on the history tables of the versioned tables (the versioning trigger
 *   runs with the caller's rights and inserts there);
 * - only SELECT on `avisos` (the sales side's table, read-only here).
 *
 * What needs more runs in functions owned by the owner with definer rights (SECURITY DEFINER,
 * PostgreSQL-specific; SQL Server: procedures WITH EXECUTE AS OWNER), each with a fixed
 * search_path and refusing a cutoff younger than the retention minus a month of clock tolerance, so
 * the service can never remove a live event:
 * - purge_events(store, cutoff, max_rows): deletes expired rows of an event store in chunks;
 * - purge_event_partitions(store, cutoff): drops the partitions that hold only expired rows;
 * - purge_history(table, cutoff, max_rows): deletes history versions that ended before the cutoff;
 * - ensure_monthly_partitions(...) (platform migration) becomes SECURITY DEFINER too, and takes
 *   every privilege of `medios_app` off each partition it creates.
 */
export class AppendOnly1763712600000 implements MigrationInterface {
  name = 'AppendOnly1763712600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      DO $do$
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'medios_app') THEN
          BEGIN
            CREATE ROLE medios_app NOLOGIN;
          EXCEPTION
            WHEN duplicate_object OR unique_violation THEN
              NULL; -- another database of the cluster created it meanwhile
            WHEN insufficient_privilege THEN
              RAISE EXCEPTION 'the migration login % may not create roles: as a superuser run CREATE ROLE medios_app NOLOGIN; GRANT medios_app TO %; then migrate again', current_user, current_user;
          END;
        END IF;
        -- the owner login switches to it (SET ROLE / -c role=); a superuser may anyway
        IF NOT pg_has_role(current_user, 'medios_app', 'MEMBER') THEN
          EXECUTE format('GRANT medios_app TO %I', current_user);
        END IF;
      END
      $do$;
    `);

    await q.query(`
      DO $do$
      DECLARE
        s text := quote_ident(current_schema());
      BEGIN
        EXECUTE format('GRANT USAGE ON SCHEMA %s TO medios_app', s);
        EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA %s TO medios_app', s);
        EXECUTE format('GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA %s TO medios_app', s);
        -- tables and sequences of later migrations (created by this same owner)
        EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %s GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO medios_app', s);
        EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %s GRANT USAGE, SELECT ON SEQUENCES TO medios_app', s);
      END
      $do$;

      -- the two event stores: append-only for the service
      REVOKE UPDATE, DELETE, TRUNCATE ON audit_events, security_events FROM medios_app;
      -- history of the versioned tables: written by the versioning trigger only
      REVOKE UPDATE, DELETE, TRUNCATE ON users_history, roles_history, permissions_history, role_permissions_history FROM medios_app;
      -- the sales side's table: read-only here
      REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON avisos FROM medios_app;
      -- the migrations' bookkeeping and the recorded history retention
      REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON migrations, system_versioning FROM medios_app;

      -- partitions are reached through their parent only (privileges are checked on the table named)
      DO $do$
      DECLARE
        part regclass;
      BEGIN
        FOR part IN
          SELECT i.inhrelid::regclass FROM pg_inherits i
           WHERE i.inhparent IN ('audit_events'::regclass, 'security_events'::regclass)
        LOOP
          EXECUTE format('REVOKE ALL ON %s FROM medios_app', part);
        END LOOP;
      END
      $do$;
    `);

    // Definer functions resolve names in the schema of the tables and then pg_temp, explicitly last,
    // so a temporary table of the caller can never stand in for an event store.
    const [current]: Array<{ schema: string }> = await q.query('SELECT current_schema() AS schema');
    const searchPath = `SET search_path = "${(current?.schema ?? 'public').replace(/"/g, '""')}", pg_temp`;
    await q.query(`
      -- Same behaviour as the platform migration's, now with the owner's rights (the service may not
      -- create tables) and without any right of medios_app on the new partition.
      CREATE OR REPLACE FUNCTION ensure_monthly_partitions(parent text, first_month date, last_month date)
      RETURNS int LANGUAGE plpgsql SECURITY DEFINER ${searchPath} AS $fn$
      DECLARE
        m date := date_trunc('month', first_month)::date;
        created int := 0;
        part text;
      BEGIN
        IF parent NOT IN ('audit_events', 'security_events') THEN
          RAISE EXCEPTION 'ensure_monthly_partitions: % is not an event store', parent;
        END IF;
        WHILE m <= last_month LOOP
          part := format('%s_p%s', parent, to_char(m, 'YYYY_MM'));
          IF to_regclass(quote_ident(part)) IS NULL THEN
            EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)',
              part, parent, m::timestamp AT TIME ZONE 'UTC', (m + interval '1 month')::timestamp AT TIME ZONE 'UTC');
            EXECUTE format('REVOKE ALL ON %I FROM medios_app', part);
            created := created + 1;
          END IF;
          m := (m + interval '1 month')::date;
        END LOOP;
        RETURN created;
      END
      $fn$;

      -- The youngest cutoff each purge accepts: the retention (10 years of audit, 5 of security events) less 31 days of tolerance for
      -- the caller's clock (the jobs compute cutoffs from the service's clock, not the database's).
      CREATE FUNCTION purge_min_age(target text) RETURNS interval LANGUAGE sql IMMUTABLE AS $fn$
        SELECT CASE target
                 WHEN 'audit_events' THEN interval '10 years'
                 WHEN 'security_events' THEN interval '5 years'
                 ELSE interval '10 years'  -- history of the versioned tables
               END - interval '31 days'
      $fn$;

      CREATE FUNCTION purge_events(store text, cutoff timestamptz, max_rows int)
      RETURNS int LANGUAGE plpgsql SECURITY DEFINER ${searchPath} AS $fn$
      DECLARE
        deleted int;
      BEGIN
        IF store NOT IN ('audit_events', 'security_events') THEN
          RAISE EXCEPTION 'purge_events: % is not an event store', store;
        END IF;
        IF cutoff > now() - purge_min_age(store) THEN
          RAISE EXCEPTION 'purge_events: cutoff % of % is younger than its retention', cutoff, store;
        END IF;
        EXECUTE format(
          'WITH doomed AS (SELECT occurred_at, id FROM %1$I WHERE occurred_at < $1 LIMIT $2),
                gone AS (DELETE FROM %1$I e USING doomed d WHERE e.occurred_at = d.occurred_at AND e.id = d.id RETURNING 1)
           SELECT count(*)::int FROM gone', store)
          INTO deleted USING cutoff, max_rows;
        RETURN deleted;
      END
      $fn$;

      CREATE FUNCTION purge_event_partitions(store text, cutoff timestamptz)
      RETURNS text[] LANGUAGE plpgsql SECURITY DEFINER ${searchPath} AS $fn$
      DECLARE
        dropped text[] := '{}';
        p record;
      BEGIN
        IF store NOT IN ('audit_events', 'security_events') THEN
          RAISE EXCEPTION 'purge_event_partitions: % is not an event store', store;
        END IF;
        IF cutoff > now() - purge_min_age(store) THEN
          RAISE EXCEPTION 'purge_event_partitions: cutoff % of % is younger than its retention', cutoff, store;
        END IF;
        FOR p IN
          SELECT c.relname AS name,
                 (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \\(''([^'']+)''\\)'))[1]::timestamptz AS range_to
            FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
           WHERE i.inhparent = to_regclass(quote_ident(store))
           ORDER BY 2
        LOOP
          -- a bound of MAXVALUE (or a DEFAULT partition) has no literal: never dropped
          IF p.range_to IS NOT NULL AND p.range_to <= cutoff THEN
            EXECUTE format('DROP TABLE %I', p.name);
            dropped := dropped || p.name::text;
          END IF;
        END LOOP;
        RETURN dropped;
      END
      $fn$;

      CREATE FUNCTION purge_history(versioned text, cutoff timestamptz, max_rows int)
      RETURNS int LANGUAGE plpgsql SECURITY DEFINER ${searchPath} AS $fn$
      DECLARE
        deleted int;
      BEGIN
        IF versioned NOT IN ('users', 'roles', 'permissions', 'role_permissions') THEN
          RAISE EXCEPTION 'purge_history: % is not a versioned table', versioned;
        END IF;
        IF cutoff > now() - purge_min_age(versioned) THEN
          RAISE EXCEPTION 'purge_history: cutoff % of % is younger than its retention', cutoff, versioned;
        END IF;
        EXECUTE format(
          'WITH doomed AS (SELECT ctid FROM %1$I WHERE upper(sys_period) < $1 LIMIT $2),
                gone AS (DELETE FROM %1$I x USING doomed d WHERE x.ctid = d.ctid RETURNING 1)
           SELECT count(*)::int FROM gone', versioned || '_history')
          INTO deleted USING cutoff, max_rows;
        RETURN deleted;
      END
      $fn$;

      REVOKE EXECUTE ON FUNCTION ensure_monthly_partitions(text, date, date), purge_events(text, timestamptz, int),
        purge_event_partitions(text, timestamptz), purge_history(text, timestamptz, int) FROM PUBLIC;
      GRANT EXECUTE ON FUNCTION ensure_monthly_partitions(text, date, date), purge_events(text, timestamptz, int),
        purge_event_partitions(text, timestamptz), purge_history(text, timestamptz, int) TO medios_app;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP FUNCTION IF EXISTS purge_history(text, timestamptz, int);
      DROP FUNCTION IF EXISTS purge_event_partitions(text, timestamptz);
      DROP FUNCTION IF EXISTS purge_events(text, timestamptz, int);
      DROP FUNCTION IF EXISTS purge_min_age(text);
      -- the platform migration's function again, as it was: invoker's rights, no search_path, executable by PUBLIC
      DROP FUNCTION ensure_monthly_partitions(text, date, date);
      CREATE FUNCTION ensure_monthly_partitions(parent text, first_month date, last_month date)
      RETURNS int LANGUAGE plpgsql AS $fn$
      DECLARE
        m date := date_trunc('month', first_month)::date;
        created int := 0;
        part text;
      BEGIN
        WHILE m <= last_month LOOP
          part := format('%s_p%s', parent, to_char(m, 'YYYY_MM'));
          IF to_regclass(quote_ident(part)) IS NULL THEN
            EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)',
              part, parent, m::timestamp AT TIME ZONE 'UTC', (m + interval '1 month')::timestamp AT TIME ZONE 'UTC');
            created := created + 1;
          END IF;
          m := (m + interval '1 month')::date;
        END LOOP;
        RETURN created;
      END
      $fn$;
      DO $do$
      DECLARE
        s text := quote_ident(current_schema());
      BEGIN
        EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %s REVOKE ALL ON TABLES FROM medios_app', s);
        EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %s REVOKE ALL ON SEQUENCES FROM medios_app', s);
        EXECUTE format('REVOKE ALL ON ALL TABLES IN SCHEMA %s FROM medios_app', s);
        EXECUTE format('REVOKE ALL ON ALL SEQUENCES IN SCHEMA %s FROM medios_app', s);
        EXECUTE format('REVOKE USAGE ON SCHEMA %s FROM medios_app', s);
      END
      $do$;
      -- the role itself stays: it belongs to the cluster, other databases may use it
    `);
  }
}
