import type { KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../../common/config/index.js';
import { connectionSettings, type DatabaseRuntime } from '../../database/database-runtime.js';
import type { EventStore } from '../../database/dialects/sql-dialect.js';
import { AuditSealsRepository } from './audit-seals.repository.js';
import { AuditSigningKeys, AuditVerifyKeys, parseJwks, parsePublicKeys } from './audit-signing-keys.js';
import { parseInstant } from '../utc-instant.js';
import { AuditVerifier, formatReport } from './audit-verification.service.js';

/** A command line the CLI must refuse (exit 64). */
export class AuditVerifyUsageError extends Error {}

/** A database the command cannot verify at all (exit 1, its message alone: no stack for an operator to read). */
export class AuditVerifyFailure extends Error {}

export interface AuditVerifyArgs {
  stores?: EventStore[];
  from?: Date;
  to?: Date;
  publicKeyFile?: string;
  json: boolean;
}

export function parseAuditVerifyArgs(args: readonly string[]): AuditVerifyArgs {
  const options: AuditVerifyArgs = { json: false };
  for (let i = 0; i < args.length; i++) {
    const flag = args[i]!;
    const value = () => {
      const v = args[++i];
      if (v === undefined) throw new AuditVerifyUsageError(`${flag} needs a value`);
      return v;
    };
    // as strict as the API's from/to: 2026-02-30 is refused, not read as 2 March
    const instant = (v: string) => {
      const canonical = parseInstant(v);
      if (canonical === null) throw new AuditVerifyUsageError(`${flag} needs an ISO instant, e.g. 2025-03-01T00:00:00Z`);
      return new Date(`${canonical.slice(0, 23)}Z`);
    };
    if (flag === '--store') {
      const store = value();
      if (store !== 'audit_events' && store !== 'security_events') throw new AuditVerifyUsageError('--store is audit_events or security_events');
      options.stores = [store];
    } else if (flag === '--from') options.from = instant(value());
    else if (flag === '--to') options.to = instant(value());
    else if (flag === '--public-key') options.publicKeyFile = value();
    else if (flag === '--json') options.json = true;
    else throw new AuditVerifyUsageError(`unknown option for audit:verify: ${flag}`);
  }
  // an empty window compares no seal and would report "intact": a typo must not read as a clean trail
  if (options.from && options.to && options.from > options.to) throw new AuditVerifyUsageError('--from must not be later than --to');
  return options;
}

/**
 * `audit:verify`: verifies the tamper evidence with nothing but a connection (no migrations, no
 * service, and with --public-key no signing key), writes the report (human-readable, or JSON with
 * --json) and answers the exit code: 0 intact, 2 findings.
 */
export async function auditVerifyCommand(
  args: readonly string[],
  config: AppConfig,
  database: DatabaseRuntime,
  write: (text: string) => void,
): Promise<number> {
  const options = parseAuditVerifyArgs(args);
  let keys: AuditVerifyKeys;
  if (options.publicKeyFile) {
    let text: string;
    try {
      text = readFileSync(options.publicKeyFile, 'utf8');
    } catch (err) {
      throw new AuditVerifyUsageError(`--public-key: cannot read ${options.publicKeyFile} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
    }
    // a file that holds no Ed25519 public key is a wrong command line (exit 64), never a report
    // of every seal signed by an unknown key
    let parsed: KeyObject[];
    try {
      parsed = text.trim().startsWith('{') ? parseJwks(text) : parsePublicKeys(text);
    } catch (err) {
      throw new AuditVerifyUsageError(
        `--public-key: ${options.publicKeyFile} holds no usable Ed25519 public key (${err instanceof Error ? err.message : String(err)})`,
      );
    }
    if (parsed.length === 0) {
      throw new AuditVerifyUsageError(
        `--public-key: ${options.publicKeyFile} holds no public key (a PEM "PUBLIC KEY" block, or the audit-keys.json the service publishes)`,
      );
    }
    keys = new AuditVerifyKeys(parsed);
  } else {
    const found = AuditSigningKeys.existing(config);
    if (!found) {
      throw new AuditVerifyUsageError(
        'no verification key here: pass --public-key <file> (the public key, or audit-keys.json), or run where the ' +
          "service's key is configured (AUDIT_SIGNING_KEY or AUDIT_SIGNING_KEY_FILE, or the DATA_DIR of a development service)",
      );
    }
    keys = found.verifyKeys;
  }
  const dataSource = new DataSource(database.dialect.dataSourceOptions(connectionSettings(config, database.url, 'medios-audit-verify')));
  await dataSource.initialize();
  try {
    await requireTables(dataSource, [...(options.stores ?? ['audit_events', 'security_events']), 'audit_seals']);
    const verifier = new AuditVerifier(dataSource, database.dialect, new AuditSealsRepository(database.dialect), keys);
    const report = await verifier.verify({ stores: options.stores, from: options.from, to: options.to });
    // a window in which no sealed event was compared says nothing: not a clean trail, a wrong window
    // (findings, of the chain say, are reported as ever)
    if ((options.from || options.to) && report.intact && report.stores.every((store) => store.events === 0)) {
      throw new AuditVerifyUsageError('no seal covers events within --from/--to: nothing was compared (the window holds no sealed event)');
    }
    write(options.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatReport(report)}\n`);
    return report.intact ? 0 : 2;
  } finally {
    await dataSource.destroy();
  }
}

/**
 * A wrong DATABASE_URL (an empty database, another application's) would otherwise end in the
 * driver's "relation does not exist" and a stack trace; the operator is told which tables are
 * missing instead. A store dropped from a medios database lands here too, and is not "intact".
 */
async function requireTables(dataSource: DataSource, tables: readonly string[]): Promise<void> {
  const runner = dataSource.createQueryRunner();
  try {
    const missing: string[] = [];
    for (const table of tables) if (!(await runner.hasTable(table))) missing.push(table);
    if (missing.length) {
      throw new AuditVerifyFailure(
        `cannot verify: the database has no table ${missing.join(', ')}. Is DATABASE_URL the service's database, ` +
          'and is it migrated (npm run db:migrate)? A table dropped from a migrated database is lost evidence.',
      );
    }
  } finally {
    await runner.release();
  }
}
