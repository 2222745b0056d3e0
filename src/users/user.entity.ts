import { Column, Entity } from 'typeorm';
import { ResourceRow } from '../database/resource-row.js';
import { BOOLEAN, jsonTransformer, TIMESTAMP } from '../database/column-types.js';

export interface PermissionOverrides {
  granted: string[];
  denied: string[];
}

/** users (system-versioned: history in users_history). */
@Entity({ name: 'users' })
export class UserEntity extends ResourceRow({ default: () => 'CURRENT_TIMESTAMP' }) {
  @Column({ type: 'varchar' })
  username!: string;

  /** bcrypt hash; never returned, logged or audited */
  @Column({ name: 'password_hash', type: 'varchar', select: false })
  passwordHash!: string;

  @Column({ type: 'varchar' })
  nombre!: string;

  @Column({ type: 'varchar' })
  apellido!: string;

  @Column({ type: 'varchar' })
  email!: string;

  @Column({ name: 'role_id', type: 'int' })
  roleId!: number;

  @Column({ name: 'must_change_password', type: BOOLEAN })
  mustChangePassword!: boolean;

  @Column({ name: 'ultimo_login', type: TIMESTAMP, nullable: true })
  ultimoLogin!: Date | null;

  /** the overrides' own version (If-Match of `PUT /users/{id}/permisos/overrides`); the row's `version` moves with every write */
  @Column({ name: 'permisos_version', type: 'int', default: 1 })
  permisosVersion!: number;

  @Column({ name: 'permission_overrides', type: 'text', transformer: jsonTransformer })
  permissionOverrides!: PermissionOverrides;
}
