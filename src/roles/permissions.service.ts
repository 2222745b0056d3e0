import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { type FieldError, ValidationFailedError } from '../common/errors/domain-error.js';
import { PermissionDto } from './dto/permission.dto.js';
import { PermissionEntity, RolePermissionEntity } from './permission.entity.js';
import { PointInTimeService } from './point-in-time.service.js';

/** The permission catalog and the permission sets of roles, now and at an instant. */
@Injectable()
export class PermissionsService {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly history: PointInTimeService,
  ) {}

  /** The catalog, sorted by codigo. */
  async catalog(): Promise<PermissionDto[]> {
    const rows = await this.txHost.tx.find(PermissionEntity);
    return rows.map((p) => ({ codigo: p.codigo, descripcion: p.descripcion })).sort((a, b) => compare(a.codigo, b.codigo));
  }

  /**
   * The catalog entries of `codes` (sorted, duplicates removed); 400 `validacion` naming every
   * unknown code as `<field>[i]`.
   */
  async requireKnown(codes: readonly string[], field: string): Promise<PermissionEntity[]> {
    const catalog = new Map((await this.txHost.tx.find(PermissionEntity)).map((p) => [p.codigo, p]));
    const errors: FieldError[] = [];
    codes.forEach((code, i) => {
      if (!catalog.has(code)) errors.push({ field: `${field}[${i}]`, message: `${code} no es un permiso del catálogo` });
    });
    if (errors.length) throw new ValidationFailedError(errors, 'La solicitud nombra permisos que no existen');
    return [...new Set(codes)].sort(compare).map((c) => catalog.get(c) as PermissionEntity);
  }

  /** The codes a role owns now, sorted (its assignment, whether or not the role is active). */
  async ofRole(roleId: number): Promise<string[]> {
    const rows: Array<{ codigo: string }> = await this.txHost.tx
      .createQueryBuilder()
      .select('p.codigo', 'codigo')
      .from(RolePermissionEntity, 'rp')
      .innerJoin(PermissionEntity, 'p', 'p.id = rp.permissionId')
      .where('rp.roleId = :roleId', { roleId })
      .getRawMany();
    return rows.map((r) => r.codigo).sort(compare);
  }

  /** The codes a role owned at `asOf`, sorted, from the history of role_permissions and permissions. */
  async ofRoleAsOf(roleId: number, asOf: string): Promise<string[]> {
    const links = await this.history.rows<{ permission_id: number }>('role_permissions', ['permission_id'], { role_id: roleId }, asOf);
    if (!links.length) return [];
    const catalog = await this.history.rows<{ id: number; codigo: string }>('permissions', ['id', 'codigo'], {}, asOf);
    const codeOf = new Map(catalog.map((p) => [Number(p.id), p.codigo]));
    return links
      .map((l) => codeOf.get(Number(l.permission_id)))
      .filter((c): c is string => c !== undefined)
      .sort(compare);
  }
}

/** Code-unit order: the same everywhere, whatever the database collation. */
export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
