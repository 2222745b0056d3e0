import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/** permissions: the catalog (system-versioned). */
@Entity({ name: 'permissions' })
export class PermissionEntity {
  @PrimaryGeneratedColumn({ type: 'int' })
  id!: number;

  @Column({ type: 'varchar' })
  codigo!: string;

  @Column({ type: 'varchar' })
  descripcion!: string;
}

/** role_permissions: which permissions a role owns (system-versioned). */
@Entity({ name: 'role_permissions' })
export class RolePermissionEntity {
  @PrimaryColumn({ name: 'role_id', type: 'int' })
  roleId!: number;

  @PrimaryColumn({ name: 'permission_id', type: 'int' })
  permissionId!: number;
}
