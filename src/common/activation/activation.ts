import { Injectable } from '@nestjs/common';
import type { EntityTarget } from 'typeorm';
import { AuditService } from '../../audit/audit.service.js';
import { Clock } from '../context/clock.js';
import { VersionedWrites } from '../versioning/versioned-writes.js';

/** A soft-deletable row: deactivation flips `activo`, nothing is removed. */
export interface Activatable {
  id: number;
  activo: boolean;
}

type VersionedEntity = { id: number; version: number } & ActivationChanges;

export interface ActivationChanges {
  activo: boolean;
  updatedAt: Date;
}

export interface ActivationRequest<E extends Activatable> {
  /** the versioned table the default write updates */
  entity: EntityTarget<VersionedEntity>;
  /** the row as read under the caller's write lock */
  row: E;
  activo: boolean;
  /** the audit target type and action prefix: `medio` records `medio.deactivate` / `medio.reactivate` */
  resource: string;
  /** the audit target id when it is not the row id (roles are audited by codigo) */
  auditId?: string | number;
  /** the resource's own state rules (409s), run only when the state really changes */
  check?: () => Promise<void>;
  /**
   * Replaces the default write of `{activo, updatedAt}` through VersionedWrites: for a resource
   * whose SQL lives in a repository, or whose unique index must answer a race as 409.
   */
  write?: (changes: ActivationChanges) => Promise<void>;
  /** after the write, before the audit event: side effects and guarantees read on the new state */
  afterWrite?: () => Promise<void>;
}

/**
 * The one deactivation/reactivation mechanism. Idempotent: asking for the state the row already
 * has answers the row and writes nothing, not even an audit event. A real change runs the
 * resource's rules, writes `activo` and `updated_at` (through VersionedWrites, so If-Match and the
 * row version hold) and records `<resource>.deactivate|reactivate` with
 * `{ before: { activo }, after: { activo } }`, in the request's transaction.
 */
@Injectable()
export class Activation {
  constructor(
    private readonly versions: VersionedWrites,
    private readonly audit: AuditService,
    private readonly clock: Clock,
  ) {}

  /** The row as it now is (the same object on a no-op). */
  async set<E extends Activatable>(request: ActivationRequest<E>): Promise<E & Partial<ActivationChanges>> {
    const { row, activo } = request;
    if (row.activo === activo) return row;
    await request.check?.();
    const changes: ActivationChanges = { activo, updatedAt: this.clock.now() };
    if (request.write) await request.write(changes);
    else await this.versions.update(request.entity, { id: row.id }, changes);
    await request.afterWrite?.();
    await this.audit.record(`${request.resource}.${activo ? 'reactivate' : 'deactivate'}`, request.resource, request.auditId ?? row.id, {
      before: { activo: row.activo },
      after: { activo },
    });
    return { ...row, ...changes };
  }
}
