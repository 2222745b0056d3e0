/** The allowed values of a seccion's `tipo` (docs/api.md "Medios, secciones and puntos de venta"). */
export const TIPOS_SECCION = ['clasificados', 'comercial', 'edictos', 'funebres', 'suplemento', 'digital'] as const;
export type TipoSeccion = (typeof TIPOS_SECCION)[number];
