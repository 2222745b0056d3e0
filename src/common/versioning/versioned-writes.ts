import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { ClsService } from 'nestjs-cls';
import type { EntityTarget, FindOptionsWhere, ObjectLiteral } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity.js';
import type { RequestStore } from '../context/request-context.js';
import { VersionConflictError } from './etag.interceptor.js';

/**
 * The write half of If-Match. Every change of a versioned resource's row goes through `update`:
 * `UPDATE … SET <changes>, version = version + 1 WHERE <key> [AND version = <the version the
 * request's If-Match matched>]` (the entity's `@VersionColumn` makes TypeORM add the increment).
 * The 412 `version_obsoleta` of a change happens here, after the operation's own refusals (400,
 * 404, 403, 409): when the request's If-Match named another representation, or when the row no
 * longer has the version it matched — another change committed since the check — so no row
 * matches; either way the request's transaction rolls back. The check and the write are one
 * statement. A change that ends without writing (an idempotent repeat) is settled by
 * ETagInterceptor after its handler.
 */
@Injectable()
export class VersionedWrites {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly cls: ClsService<RequestStore>,
  ) {}

  async update<E extends ObjectLiteral & { version: number }>(
    entity: EntityTarget<E>,
    where: FindOptionsWhere<E>,
    changes: QueryDeepPartialEntity<E>,
  ): Promise<void> {
    const tx = this.txHost.tx;
    const expected = this.cls.isActive() ? this.cls.get('ifMatchVersion') : undefined;
    if (!expected || expected.table !== tx.connection.getMetadata(entity).tableName) {
      await tx.update(entity, where, changes);
      return;
    }
    if (expected.stale) throw new VersionConflictError();
    const result = await tx.update(entity, { ...where, version: expected.version } as FindOptionsWhere<E>, changes);
    if (!result.affected) throw new VersionConflictError();
    // matched once: a second write of the same row in this request builds on the first
    this.cls.set('ifMatchVersion', undefined);
  }
}
