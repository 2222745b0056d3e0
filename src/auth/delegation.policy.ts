import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { SecurityEventsService } from '../audit/security-events.service.js';
import { Clock } from '../common/context/clock.js';
import { RequestContext } from '../common/context/request-context.js';
import { TracedRefusal } from '../common/errors/domain-error.js';
import { SYSTEM_USERNAME } from '../users/system-user.js';
import { unauthenticated } from './access.guard.js';
import { EffectivePermissionsService, effectivePermissions } from './effective-permissions.service.js';

/** What an operation asks of the caller beyond the route's own permission. */
export interface Delegation {
  /** a user the operation acts on: its effective permissions must all be the caller's */
  target?: number;
  /** permission codes the operation hands out (a role's set, granted overrides, additions to a role) */
  grants?: readonly string[];
}

/**
 * The delegation rule (docs/permissions.md): an administrator hands out only permissions it holds,
 * acts only on users whose effective permissions are a subset of its own, never changes its own
 * overrides or its own role's permission set, and never resets its own password through the
 * administrators' reset. Every user, role and session operation asks here, after its 400 and 404
 * checks and before its 409 state rules.
 *
 * A refusal is 403 `privilegio_insuficiente`, changes nothing and writes no audit event; it leaves
 * a `permission.denied` security event `{reason: "privilege_escalation", required, endpoint,
 * method}`, written by the error filter once the request's transaction has ended (TracedRefusal).
 *
 * Permissions are read here, from the store and inside the request's transaction when there is
 * one — never from what the guard attached to the request — so the check sees the state the
 * operation is about to change. Inside that transaction the caller itself is checked again as the
 * guard checked it (active, its session live, the route's permissions held): a user's creation and
 * a password reset wait for a password hash between the guard and their write, seconds when the
 * hashing queue is long, and would else complete for a caller deactivated, signed out or stripped
 * of the permission meanwhile (401 `no_autenticado`, 403 `permiso_denegado`; nothing written).
 */
@Injectable()
export class DelegationPolicy {
  constructor(
    private readonly access: EffectivePermissionsService,
    private readonly securityEvents: SecurityEventsService,
    private readonly context: RequestContext,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly clock: Clock,
  ) {}

  /** The user's effective permissions as the current transaction (if any) sees them; empty when it does not exist. */
  async effectivePermissions(userId: number): Promise<ReadonlySet<string>> {
    return new Set((await this.access.resolve(userId, this.txHost.tx))?.efectivos ?? []);
  }

  /**
   * Refused unless the caller holds every effective permission of `target` and every code of
   * `grants`. A caller holding every permission is never refused by it.
   */
  async assertDelegable(callerId: number, { target, grants = [] }: Delegation): Promise<void> {
    await this.assertCallerStillAdmitted(callerId);
    if (target !== undefined && (await this.isOperatorActor(target))) {
      throw this.refusal(callerId, [], `El usuario ${SYSTEM_USERNAME} actúa por los comandos del operador: la API no lo modifica`);
    }
    const held = await this.effectivePermissions(callerId);
    const wanted = new Set(grants);
    if (target !== undefined && target !== callerId) for (const code of await this.effectivePermissions(target)) wanted.add(code);
    const missing = [...wanted].filter((code) => !held.has(code)).sort();
    if (!missing.length) return;
    const ungranted = missing.filter((code) => grants.includes(code));
    throw this.refusal(
      callerId,
      missing,
      ungranted.length
        ? `No puede otorgar permisos que no tiene: ${ungranted.join(', ')}`
        : `El usuario ${target} tiene permisos que usted no tiene: ${missing.join(', ')}`,
    );
  }

  /**
   * The guard's check of the caller, run again in the transaction about to write (class comment).
   * Outside a transaction the guard's own check is as recent; the CLI has no guard.
   */
  private async assertCallerStillAdmitted(callerId: number): Promise<void> {
    const admission = this.context.admission;
    if (!admission || this.context.actorUserId !== callerId || !this.txHost.isTransactionActive()) return;
    const { sessionId, required, endedSessionAllowed } = admission;
    const access = await this.access.authorize(callerId, sessionId, this.clock.now(), required, this.txHost.tx);
    if (!access?.activo || (!access.sessionActive && !endedSessionAllowed)) throw unauthenticated();
    const missing = required.find((_code, i) => !access.holds[i]);
    if (missing === undefined) return;
    const metadata = { permission: missing, endpoint: this.context.endpoint, method: this.context.method };
    throw new TracedRefusal('permiso_denegado', `Se requiere el permiso ${missing}`, () =>
      this.securityEvents.record({ action: 'permission.denied', result: 'failure', actorUserId: callerId, metadata }),
    );
  }

  /**
   * The CLI's actor (`system`): nobody acts on it through the API. Made active, given a password or
   * a role, a person could sign in as it and act under the id that marks the operator's commands
   * in the trail, and the CLI would refuse to act as it.
   */
  private async isOperatorActor(userId: number): Promise<boolean> {
    const row: { username?: string } | undefined = await this.txHost.tx
      .createQueryBuilder()
      .select('u.username', 'username')
      .from('users', 'u')
      .where('u.id = :userId', { userId })
      .getRawOne();
    return row?.username === SYSTEM_USERNAME;
  }

  /** Acting on another user (update, deactivate, reactivate, password reset, overrides, session revocation). */
  assertCanActOn(callerId: number, targetUserId: number): Promise<void> {
    return this.assertDelegable(callerId, { target: targetUserId });
  }

  /**
   * Taking permissions away from a role acts on every user who holds it, so it is refused unless
   * the caller holds every effective permission of each of them — inactive holders included, as
   * for acting on one user. Without it, a holder of the user and role permissions could empty the
   * `admin` role, after which the `admin`'s permissions were all its own and its password was the
   * caller's to reset. `rolePermisos`: the role's set before the change. Returns the refusal,
   * read now, for the caller to throw at its place in the order of checks (after anti-lockout).
   */
  async refusalOfHoldersOf(
    callerId: number,
    role: { id: number; activo: boolean },
    rolePermisos: readonly string[],
  ): Promise<TracedRefusal | undefined> {
    const holders = await this.access.overridesOfHolders(role.id, this.txHost.tx);
    if (!holders.length) return undefined;
    const held = await this.effectivePermissions(callerId);
    const missing = new Set<string>();
    for (const overrides of holders)
      for (const code of effectivePermissions(role.activo ? rolePermisos : [], overrides)) if (!held.has(code)) missing.add(code);
    if (!missing.size) return undefined;
    const required = [...missing].sort();
    return this.refusal(callerId, required, `Usuarios con el rol tienen permisos que usted no tiene: ${required.join(', ')}`);
  }

  /** Handing out `codes` (a role assigned at create or update, granted overrides, additions to a role's set). */
  assertCanGrant(callerId: number, codes: readonly string[]): Promise<void> {
    return this.assertDelegable(callerId, { grants: codes });
  }

  /**
   * The self-rules, binding everyone, the installed `admin` included: its own overrides (any
   * change, even one that changes nothing) and its own password through the administrators' reset.
   */
  assertNotSelf(callerId: number, targetUserId: number, what: 'overrides' | 'password_reset'): void {
    if (callerId !== targetUserId) return;
    throw this.refusal(
      callerId,
      [],
      what === 'overrides'
        ? 'No puede cambiar sus propias excepciones de permisos'
        : 'No puede restablecer su propia contraseña por esta vía; use PUT /api/v1/users/me/password',
    );
  }

  /** The caller's own role's permission set is not its to change (binds everyone). */
  async assertNotOwnRole(callerId: number, roleCodigo: string): Promise<void> {
    const caller = await this.access.resolve(callerId, this.txHost.tx);
    if (caller?.rol === roleCodigo) throw this.refusal(callerId, [], `No puede cambiar los permisos de su propio rol ${roleCodigo}`);
  }

  private refusal(callerId: number, required: string[], message: string): TracedRefusal {
    const metadata = { reason: 'privilege_escalation', required, endpoint: this.context.endpoint, method: this.context.method };
    return new TracedRefusal('privilegio_insuficiente', message, () =>
      this.securityEvents.record({ action: 'permission.denied', result: 'failure', actorUserId: callerId, metadata }),
    );
  }
}
