/** Permissions of the catalog (docs/permissions.md). */
export const RUBROS_PERMISSION = 'catalogo:rubros:gestionar';
export const PRODUCT_TYPES_PERMISSION = 'catalogo:tipos_producto:gestionar';
export const PRODUCTS_PERMISSION = 'catalogo:productos:gestionar';

/** Codes of product types and products (docs/api.md "Conventions"): 1..20 of [A-Z0-9_], uppercase only. */
export const CODIGO_PATTERN = /^[A-Z0-9_]{1,20}$/;

/** Largest value of an int column: ids in bodies and queries beyond it are 400, not a store error. */
export const MAX_ID = 2_147_483_647;

export { containsPattern } from '../common/pagination/search.js';
