import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The versioning trigger keeps every committed version. It stamps versions with the transaction's
 * start (now()), and when an update waited for a row's lock while a transaction that started later
 * changed and committed that row, the version that transaction wrote began after this one's start:
 * the trigger took the later instant and, finding the version's period empty, did not keep it (a
 * saved and audited version was missing from the history). Such a version is now kept, closed a
 * microsecond after it began, as the temporal_tables extension's "adjust" does. SQL Server needs no
 * counterpart: its temporal tables refuse that update with error 13535, which the service answers
 * as a conflict to send again (503).
 */
export class VersioningKeepsRacedVersions1763713700000 implements MigrationInterface {
  name = 'VersioningKeepsRacedVersions1763713700000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE OR REPLACE FUNCTION versioning() RETURNS trigger LANGUAGE plpgsql AS $fn$
      DECLARE
        ts timestamptz := now();
      BEGIN
        IF TG_OP IN ('UPDATE', 'DELETE') THEN
          -- the old version began after this transaction did: another transaction that started
          -- later committed it while this one waited for the row's lock. Keep it, closed a
          -- microsecond after it began, and open the new one there (temporal_tables' "adjust");
          -- a version this same transaction wrote begins exactly at now() and is not kept.
          IF lower(OLD.sys_period) > ts THEN
            ts := lower(OLD.sys_period) + interval '1 microsecond';
          END IF;
          IF lower(OLD.sys_period) < ts THEN
            OLD.sys_period := tstzrange(lower(OLD.sys_period), ts, '[)');
            EXECUTE format('INSERT INTO %I.%I SELECT ($1).*', TG_TABLE_SCHEMA, TG_ARGV[0]) USING OLD;
          END IF;
        END IF;
        IF TG_OP = 'DELETE' THEN
          RETURN OLD;
        END IF;
        NEW.sys_period := tstzrange(ts, NULL, '[)');
        RETURN NEW;
      END
      $fn$`);
  }

  async down(q: QueryRunner): Promise<void> {
    // the body the platform migration wrote, as it wrote it
    await q.query(`CREATE OR REPLACE FUNCTION versioning() RETURNS trigger LANGUAGE plpgsql AS $fn$
      DECLARE
        ts timestamptz := now();
      BEGIN
        IF TG_OP IN ('UPDATE', 'DELETE') THEN
          ts := greatest(ts, lower(OLD.sys_period));
          IF lower(OLD.sys_period) < ts THEN
            OLD.sys_period := tstzrange(lower(OLD.sys_period), ts, '[)');
            EXECUTE format('INSERT INTO %I.%I SELECT ($1).*', TG_TABLE_SCHEMA, TG_ARGV[0]) USING OLD;
          END IF;
        END IF;
        IF TG_OP = 'DELETE' THEN
          RETURN OLD;
        END IF;
        NEW.sys_period := tstzrange(ts, NULL, '[)');
        RETURN NEW;
      END
      $fn$`);
  }
}
