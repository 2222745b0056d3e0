/** What every activatable resource shows after its own fields: `activo` and its two timestamps (ISO 8601, UTC). */
export interface ResourceState {
  activo: boolean;
  createdAt: string;
  updatedAt: string;
}

export function resourceStateOf(row: { activo: boolean; createdAt: Date; updatedAt: Date }): ResourceState {
  return { activo: row.activo, createdAt: row.createdAt.toISOString(), updatedAt: row.updatedAt.toISOString() };
}
