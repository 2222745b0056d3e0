/** The 24 Argentine jurisdictions of docs/api.md "Fiscal tables" (23 provinces and CABA). */
export const PROVINCIAS = [
  { codigo: 'BUENOS_AIRES', nombre: 'Buenos Aires' },
  { codigo: 'CABA', nombre: 'Ciudad Autónoma de Buenos Aires' },
  { codigo: 'CATAMARCA', nombre: 'Catamarca' },
  { codigo: 'CHACO', nombre: 'Chaco' },
  { codigo: 'CHUBUT', nombre: 'Chubut' },
  { codigo: 'CORDOBA', nombre: 'Córdoba' },
  { codigo: 'CORRIENTES', nombre: 'Corrientes' },
  { codigo: 'ENTRE_RIOS', nombre: 'Entre Ríos' },
  { codigo: 'FORMOSA', nombre: 'Formosa' },
  { codigo: 'JUJUY', nombre: 'Jujuy' },
  { codigo: 'LA_PAMPA', nombre: 'La Pampa' },
  { codigo: 'LA_RIOJA', nombre: 'La Rioja' },
  { codigo: 'MENDOZA', nombre: 'Mendoza' },
  { codigo: 'MISIONES', nombre: 'Misiones' },
  { codigo: 'NEUQUEN', nombre: 'Neuquén' },
  { codigo: 'RIO_NEGRO', nombre: 'Río Negro' },
  { codigo: 'SALTA', nombre: 'Salta' },
  { codigo: 'SAN_JUAN', nombre: 'San Juan' },
  { codigo: 'SAN_LUIS', nombre: 'San Luis' },
  { codigo: 'SANTA_CRUZ', nombre: 'Santa Cruz' },
  { codigo: 'SANTA_FE', nombre: 'Santa Fe' },
  { codigo: 'SANTIAGO_DEL_ESTERO', nombre: 'Santiago del Estero' },
  { codigo: 'TIERRA_DEL_FUEGO', nombre: 'Tierra del Fuego, Antártida e Islas del Atlántico Sur' },
  { codigo: 'TUCUMAN', nombre: 'Tucumán' },
] as const;

export type Provincia = (typeof PROVINCIAS)[number]['codigo'];

export const PROVINCIA_CODIGOS: readonly Provincia[] = PROVINCIAS.map((p) => p.codigo);
