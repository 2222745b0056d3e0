import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { ClsService } from 'nestjs-cls';
import type { EntityTarget, FindOptionsWhere, ObjectLiteral } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity.js';
import type { RequestStore } from '../context/request-context.js';
import { VersionConflictError } from './etag.interceptor.js';

/** The column of the permission sets' own versions (users' overrides, roles' sets). */
export const PERMISSION_SET_VERSION = 'permisos_version';

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

  /**
   * 412 at once when the row, as the caller has just locked it, no longer has the version the
   * request's If-Match was checked against: another change committed in between. For a change that
   * writes other rows before its own versioned `update` (a role's permission set, written first so
   * that its 409 and 403 come before a stale tag's 412): racing a concurrent change, those writes
   * would touch rows that change wrote, which SQL Server's temporal tables refuse (error 13535, a
   * 503) where the race is a 412.
   */
  assertUnchangedSinceCheck(entity: EntityTarget<ObjectLiteral>, versionColumn: string, lockedVersion: number): void {
    const expected = this.cls.isActive() ? this.cls.get('ifMatchVersion') : undefined;
    const table = this.txHost.tx.connection.getMetadata(entity).tableName;
    if (expected && expected.table === table && expected.column === versionColumn && expected.version !== lockedVersion) {
      throw new VersionConflictError();
    }
  }

  /**
   * `versionColumn` names the version the change compares and increments: the row's `version`, or
   * the version of a set the row carries (`permisos_version`, see VersionedResource), whose write
   * leaves the row's `version` as it is: the row's own representation did not change.
   */
  async update<E extends ObjectLiteral & { version: number }>(
    entity: EntityTarget<E>,
    where: FindOptionsWhere<E>,
    changes: QueryDeepPartialEntity<E>,
    versionColumn = 'version',
  ): Promise<void> {
    const tx = this.txHost.tx;
    const metadata = tx.connection.getMetadata(entity);
    const property = metadata.findColumnWithDatabaseName(versionColumn)?.propertyName;
    if (!property) throw new Error(`${metadata.tableName} has no column ${versionColumn}`);
    // TypeORM increments the @VersionColumn unless the UPDATE sets it: here it is set to itself
    const set =
      versionColumn === 'version'
        ? changes
        : ({ ...changes, [property]: () => `${versionColumn} + 1`, version: () => 'version' } as QueryDeepPartialEntity<E>);
    const expected = this.cls.isActive() ? this.cls.get('ifMatchVersion') : undefined;
    if (!expected || expected.table !== metadata.tableName || expected.column !== versionColumn) {
      await tx.update(entity, where, set);
      return;
    }
    if (expected.stale) throw new VersionConflictError();
    const result = await tx.update(entity, { ...where, [property]: expected.version } as FindOptionsWhere<E>, set);
    if (!result.affected) throw new VersionConflictError();
    // matched once: a second write of the same row in this request builds on the first
    this.cls.set('ifMatchVersion', undefined);
  }
}
