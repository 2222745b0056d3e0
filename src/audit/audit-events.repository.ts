import { Inject, Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { SQL_DIALECT, type SqlDialect } from '../database/dialects/index.js';
import type { AuditPageQuery, AuditPageRow } from '../database/dialects/sql-dialect.js';

/** Reads of the audit store: one keyset page, in the engine's SQL (see the dialects). */
@Injectable()
export class AuditEventsRepository {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    @Inject(SQL_DIALECT) private readonly dialect: SqlDialect,
  ) {}

  page(query: AuditPageQuery): Promise<AuditPageRow[]> {
    const { sql, parameters } = this.dialect.auditEventsPage(query);
    return this.txHost.tx.query(sql, parameters);
  }
}
