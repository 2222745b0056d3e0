/** Codes of medios and secciones (docs/api.md "Conventions"): 1..20 of [A-Z0-9_], uppercase only. */
export const CODIGO_PATTERN = /^[A-Z0-9_]{1,20}$/;

/** The allowed values of a seccion's `tipo` (docs/api.md "Medios, secciones and puntos de venta"). */
export const TIPOS_SECCION = ['clasificados', 'comercial', 'edictos', 'funebres', 'suplemento', 'digital'] as const;
export type TipoSeccion = (typeof TIPOS_SECCION)[number];

/** Largest value of an int column: ids in bodies beyond it are 400, not a store error. */
export const MAX_ID = 2_147_483_647;
