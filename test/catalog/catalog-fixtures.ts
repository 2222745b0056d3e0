import { expect } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import type { TestApp } from '../support/test-app.js';

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

export async function createRubro(t: TestApp, token: string, nombre: string, parentId: number | null = null): Promise<Rubro> {
  const res = await t.post('/api/v1/admin/rubros', { nombre, parentId }, { token });
  if (res.status !== 201) throw new Error(`create rubro ${nombre}: ${res.status} ${res.text}`);
  return res.body;
}

/** A chain of `levels` rubros, root first: chain[i] sits at level i + 1. */
export async function createChain(t: TestApp, token: string, levels: number, prefix = `C${uid()}`): Promise<Rubro[]> {
  const chain: Rubro[] = [];
  for (let i = 0; i < levels; i++) chain.push(await createRubro(t, token, `${prefix}-${i + 1}`, chain[i - 1]?.id ?? null));
  expect(chain.map((r) => r.nivel)).toEqual(Array.from({ length: levels }, (_v, i) => i + 1));
  return chain;
}

export async function createProductType(t: TestApp, token: string, codigo = `PT_${uid()}`): Promise<{ id: number; codigo: string }> {
  const res = await t.post('/api/v1/admin/product-types', { codigo, nombre: `Tipo ${codigo}`, descripcion: 'para tests' }, { token });
  if (res.status !== 201) throw new Error(`create product type ${codigo}: ${res.status} ${res.text}`);
  return res.body;
}

export async function createProduct(
  t: TestApp,
  token: string,
  rubroId: number,
  productTypeId: number,
  codigo = `P_${uid()}`,
): Promise<{ id: number; codigo: string }> {
  const res = await t.post('/api/v1/admin/products', { codigo, nombre: `Producto ${codigo}`, rubroId, productTypeId }, { token });
  if (res.status !== 201) throw new Error(`create product ${codigo}: ${res.status} ${res.text}`);
  return res.body;
}

/** Counts the answers of concurrent requests by status. */
export function statusCounts(results: Array<{ status: number }>): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const r of results) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return counts;
}
