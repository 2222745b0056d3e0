/**
 * Every permission code the API checks (docs/permissions.md), named once. `@RequirePermission(...)` and every rule that
 * names a permission read it from here. The catalog rows in the database were inserted by
 * migrations that keep their own literal copy: a migration that already ran never changes when
 * this file does (a new permission ships as a new migration beside its entry here).
 */
export const PERMISSIONS = {
  usuarios: { ver: 'administracion:usuarios:ver', gestionar: 'administracion:usuarios:gestionar' },
  roles: { ver: 'administracion:roles:ver', gestionar: 'administracion:roles:gestionar' },
  auditoria: { ver: 'administracion:auditoria:ver' },
  medios: { gestionar: 'administracion:medios:gestionar' },
  puntosDeVenta: { gestionar: 'administracion:puntos_de_venta:gestionar' },
  fiscal: { gestionar: 'administracion:fiscal:gestionar' },
  rubros: { gestionar: 'catalogo:rubros:gestionar' },
  tiposProducto: { gestionar: 'catalogo:tipos_producto:gestionar' },
  productos: { gestionar: 'catalogo:productos:gestionar' },
} as const;

type Values<T> = T[keyof T];
/** One permission code of the catalog. */
export type Permission = Values<{ [K in keyof typeof PERMISSIONS]: Values<(typeof PERMISSIONS)[K]> }>;

/** Every code of the catalog, in the order above. */
export const PERMISSION_CODES: readonly Permission[] = Object.values(PERMISSIONS).flatMap((group) => Object.values(group) as Permission[]);

/**
 * The OpenAPI schema of a permission code: the named enum `PermissionCode`, so a typed client checks
 * the codes it compares or sends (the database catalog holds the same codes, GET /api/v1/permisos).
 */
export const PERMISSION_CODE_SCHEMA = { enum: [...PERMISSION_CODES], enumName: 'PermissionCode' } as const;
