import { Column, Entity } from 'typeorm';
import { ResourceRow } from '../database/resource-row.js';

/** roles (system-versioned: history in roles_history). */
@Entity({ name: 'roles' })
export class RoleEntity extends ResourceRow({ default: () => 'CURRENT_TIMESTAMP' }) {
  @Column({ type: 'varchar' })
  codigo!: string;

  @Column({ type: 'varchar' })
  nombre!: string;

  @Column({ type: 'varchar' })
  descripcion!: string;

  /** the permission set's own version (If-Match of `PUT /roles/{codigo}/permisos`), apart from the row's `version` */
  @Column({ name: 'permisos_version', type: 'int', default: 1 })
  permisosVersion!: number;
}
