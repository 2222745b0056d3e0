import { expect } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import type { TestApp } from '../support/test-app.js';
import { created } from '../support/resources.js';

/** A short unique suffix, so tests that share one database never clash on names or codes. */
export const uid = () => randomBytes(3).toString('hex').toUpperCase();

export interface Rubro {
  id: number;
  nombre: string;
  parentId: number | null;
  activo: boolean;
  tieneAvisos: boolean;
  nivel: number;
}

/** A rubro of the tree read (`GET …/rubros/tree`), with its children. */
export interface RubroNode extends Rubro {
  hijos: RubroNode[];
}

export const createRubro = (t: TestApp, token: string, nombre: string, parentId: number | null = null): Promise<Rubro> =>
  created(t.post('/api/v1/admin/rubros', { nombre, parentId }, { token }), `create rubro ${nombre}`);

/** A chain of `levels` rubros, root first: chain[i] sits at level i + 1. */
export async function createChain(t: TestApp, token: string, levels: number, prefix = `C${uid()}`): Promise<Rubro[]> {
  const chain: Rubro[] = [];
  for (let i = 0; i < levels; i++) chain.push(await createRubro(t, token, `${prefix}-${i + 1}`, chain[i - 1]?.id ?? null));
  expect(chain.map((r) => r.nivel)).toEqual(Array.from({ length: levels }, (_v, i) => i + 1));
  return chain;
}

export const createProductType = (t: TestApp, token: string, codigo = `PT_${uid()}`): Promise<{ id: number; codigo: string }> =>
  created(
    t.post('/api/v1/admin/product-types', { codigo, nombre: `Tipo ${codigo}`, descripcion: 'para tests' }, { token }),
    `create product type ${codigo}`,
  );

export async function createProduct(
  t: TestApp,
  token: string,
  rubroId: number,
  productTypeId: number,
  codigo = `P_${uid()}`,
): Promise<{ id: number; codigo: string }> {
  return created(
    t.post('/api/v1/admin/products', { codigo, nombre: `Producto ${codigo}`, rubroId, productTypeId }, { token }),
    `create product ${codigo}`,
  );
}

/** Counts the answers of concurrent requests by status. */
export function statusCounts(results: Array<{ status: number }>): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const r of results) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return counts;
}
