/** Installed by the first migration of each engine (docs/permissions.md). */
export const CANONICAL_ROLES: ReadonlyArray<{ codigo: string; nombre: string; descripcion: string }> = [
  { codigo: 'admin', nombre: 'Administrador', descripcion: 'Administración completa del sistema' },
  { codigo: 'supervisor', nombre: 'Supervisor', descripcion: 'Supervisión de medios, puntos de venta y catálogo' },
  { codigo: 'cajero', nombre: 'Cajero', descripcion: 'Operación de caja' },
  { codigo: 'vendedor', nombre: 'Vendedor', descripcion: 'Venta de avisos' },
  { codigo: 'contable', nombre: 'Contable', descripcion: 'Tablas fiscales y puntos de venta' },
  { codigo: 'auditor', nombre: 'Auditor', descripcion: 'Lectura de usuarios y de la auditoría' },
  { codigo: 'diagramador', nombre: 'Diagramador', descripcion: 'Mantenimiento del árbol de rubros' },
  { codigo: 'consulta', nombre: 'Consulta', descripcion: 'Solo consulta' },
];

/** The permission catalog the first migration installs, with the roles that hold each code. */
export const PERMISSION_CATALOG: ReadonlyArray<{ codigo: string; descripcion: string; roles: string[] }> = [
  { codigo: 'administracion:usuarios:ver', descripcion: 'Ver usuarios y sus permisos', roles: ['admin', 'supervisor', 'auditor'] },
  {
    codigo: 'administracion:usuarios:gestionar',
    descripcion: 'Crear, modificar y desactivar usuarios; overrides y blanqueo de contraseñas',
    roles: ['admin'],
  },
  { codigo: 'administracion:roles:gestionar', descripcion: 'Gestionar roles y el catálogo de permisos', roles: ['admin'] },
  { codigo: 'administracion:auditoria:ver', descripcion: 'Consultar eventos de auditoría', roles: ['admin', 'auditor'] },
  { codigo: 'administracion:medios:gestionar', descripcion: 'Gestionar medios y secciones', roles: ['admin', 'supervisor'] },
  { codigo: 'administracion:puntos_de_venta:gestionar', descripcion: 'Gestionar puntos de venta', roles: ['admin', 'supervisor', 'contable'] },
  { codigo: 'administracion:fiscal:gestionar', descripcion: 'Gestionar tipos de IVA e ingresos brutos', roles: ['admin', 'contable'] },
  { codigo: 'catalogo:rubros:gestionar', descripcion: 'Gestionar el árbol de rubros', roles: ['admin', 'supervisor', 'diagramador'] },
  { codigo: 'catalogo:tipos_producto:gestionar', descripcion: 'Gestionar tipos de producto', roles: ['admin', 'supervisor'] },
  { codigo: 'catalogo:productos:gestionar', descripcion: 'Gestionar productos y sus precios', roles: ['admin', 'supervisor'] },
];

type PermissionSeed = { codigo: string; descripcion: string; roles: string[] };

/** Added by migration 1763712950000 (both engines): reads of roles and of the catalog. */
export const ROLES_READ_SEED: PermissionSeed = {
  codigo: 'administracion:roles:ver',
  descripcion: 'Ver roles, sus permisos y el catálogo de permisos',
  roles: ['admin', 'supervisor', 'auditor'],
};

/** The catalog of a fully migrated database: the first migration's plus each later addition. */
export const INSTALLED_PERMISSION_CATALOG: ReadonlyArray<PermissionSeed> = [...PERMISSION_CATALOG, ROLES_READ_SEED];
