import { Injectable } from '@nestjs/common';
import type { EntityTarget } from 'typeorm';
import { AuditService } from '../../audit/audit.service.js';
import { Clock } from '../context/clock.js';
import { VersionedWrites } from '../versioning/versioned-writes.js';

/** A row a PUT edits, as read under the caller's write lock. */
interface Editable {
  id: number;
}

type VersionedEntity = { id: number; version: number; updatedAt: Date };

export interface EditRequest<E extends Editable, C extends Partial<E>> {
  /** the versioned table the default write updates */
  entity: EntityTarget<VersionedEntity>;
  /** the row as read under the caller's write lock */
  row: E;
  /** the edited fields' requested values; one left undefined keeps the row's value */
  changes: C;
  /** the audit target type and action prefix: `medio` records `medio.update` */
  resource: string;
  /** the audit target id when it is not the row id (roles are audited by codigo) */
  auditId?: string | number;
  /** the resource's own rules (409s) that hold only for a real change, run before the write */
  check?: () => Promise<void>;
  /** replaces the default write through VersionedWrites: for a unique index that must answer a race as 409 */
  write?: (changes: C & { updatedAt: Date }) => Promise<void>;
}

/**
 * The one update mechanism of the resources a PUT edits. A request whose values are those the row
 * already has writes nothing: no row version (so the ETag other consoles hold stays current), no
 * `updatedAt`, no audit event; an `If-Match` it carries is still checked (ETagInterceptor settles a
 * change that did not write). A real change writes the fields and `updatedAt` through
 * VersionedWrites and records `<resource>.update` with the edited fields' `{ before, after }`, in
 * the request's transaction.
 */
@Injectable()
export class Edits {
  constructor(
    private readonly versions: VersionedWrites,
    private readonly audit: AuditService,
    private readonly clock: Clock,
  ) {}

  /** The row as it now is (the same object when nothing changed). */
  async apply<E extends Editable, C extends Partial<E>>(request: EditRequest<E, C>): Promise<E & { updatedAt?: Date }> {
    const { row } = request;
    const fields = Object.keys(request.changes) as Array<keyof C & keyof E>;
    const before: Partial<E> = {};
    const after: Partial<E> = {};
    for (const field of fields) {
      before[field] = row[field];
      after[field] = (request.changes[field] === undefined ? row[field] : request.changes[field]) as E[typeof field];
    }
    if (fields.every((field) => sameValue(before[field], after[field]))) return row;
    await request.check?.();
    const changes = { ...(after as C), updatedAt: this.clock.now() };
    if (request.write) await request.write(changes);
    else await this.versions.update(request.entity, { id: row.id }, changes);
    await this.audit.record(`${request.resource}.update`, request.resource, request.auditId ?? row.id, { before, after });
    return { ...row, ...changes };
  }
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  return a === b;
}
