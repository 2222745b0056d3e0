// The audit-seal scenario's tools: the service's own sealing and verification code (from dist/),
// run in the bench process on a TypeORM connection of its own.
import 'reflect-metadata';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export async function sealTools(main, dbUrl, dataDir) {
  const dist = path.dirname(main);
  const load = (file) => import(pathToFileURL(path.join(dist, file)).href);
  const { DataSource } = await import('typeorm');
  const { PostgresDialect } = await load('database/dialects/postgres.dialect.js');
  const { AuditSealService } = await load('audit/integrity/audit-seal.service.js');
  const { AuditSealsRepository } = await load('audit/integrity/audit-seals.repository.js');
  const { AuditSigningKeys } = await load('audit/integrity/audit-signing-keys.js');
  const { AuditVerifier } = await load('audit/integrity/audit-verification.service.js');
  const { backfillRowHashes } = await load('audit/integrity/event-rows.js');
  const { MaintenanceJobRunner } = await load('audit/maintenance/maintenance-job.runner.js');
  const { Clock } = await load('common/context/clock.js');

  const dialect = new PostgresDialect();
  const ds = new DataSource(
    dialect.dataSourceOptions({ url: dbUrl, poolSize: 4, statementTimeoutMs: 600_000, connectTimeoutMs: 5000, applicationName: 'bench-seal' }),
  );
  await ds.initialize();
  // the key the service generated into its DATA_DIR (development), so the CLI verifies with it too
  const keys = AuditSigningKeys.load({ dataDir, auditSeal: { signingKeyPem: undefined, verifyKeysPem: undefined, minutes: 5 } });
  const clock = new Clock();
  const repo = new AuditSealsRepository(dialect);
  const sealer = new AuditSealService(ds, dialect, new MaintenanceJobRunner(ds, dialect, clock), keys, repo, clock, {
    settleTimeoutMs: 5000,
    maxEventsPerSeal: 50_000,
  });
  return {
    backfill: (store) => backfillRowHashes(ds, dialect, store),
    seal: (store) => sealer.sealStore(store),
    verify: (stores) => new AuditVerifier(ds, dialect, repo, keys.verifyKeys).verify({ stores }),
    close: () => ds.destroy(),
  };
}
