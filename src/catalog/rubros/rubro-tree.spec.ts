import { describe, expect, it } from '@jest/globals';
import { buildRubroTree, createsCycle, deepestLevelAfterPlacing, exceedsMaxDepth, type RubroTreeRow } from './rubro-tree.js';

describe('depth rule', () => {
  it('allows a child at exactly the maximum depth and rejects one below it', () => {
    expect(exceedsMaxDepth(9, 1, 10)).toBe(false);
    expect(exceedsMaxDepth(10, 1, 10)).toBe(true);
  });

  it('places a new root at level 1', () => {
    expect(deepestLevelAfterPlacing(0, 1)).toBe(1);
  });

  it('counts the height of a moved subtree', () => {
    // a subtree 3 levels high under a parent at level 7 ends at level 10: allowed
    expect(deepestLevelAfterPlacing(7, 3)).toBe(10);
    expect(exceedsMaxDepth(7, 3, 10)).toBe(false);
    // under a parent at level 8 it would end at level 11
    expect(exceedsMaxDepth(8, 3, 10)).toBe(true);
  });
});

describe('cycle rule', () => {
  it('rejects a move under itself or under any descendant', () => {
    expect(createsCycle(5, [5, 2, 1])).toBe(true);
    expect(createsCycle(2, [5, 2, 1])).toBe(true);
  });

  it('accepts a move under an unrelated branch', () => {
    expect(createsCycle(7, [5, 2, 1])).toBe(false);
    expect(createsCycle(7, [])).toBe(false);
  });
});

describe('buildRubroTree', () => {
  const row = (id: number, nombre: string, parentId: number | null, nivel: number): RubroTreeRow => ({
    id,
    nombre,
    parentId,
    activo: true,
    tieneAvisos: false,
    nivel,
  });

  it('nests rows under their parents and orders siblings by nombre, ignoring case and accents', () => {
    const tree = buildRubroTree([
      row(1, 'Vehículos', null, 1),
      row(2, 'autos', 1, 2),
      row(3, 'Motos', 1, 2),
      row(4, 'Ámbito', 1, 2),
      row(5, 'Inmuebles', null, 1),
      row(6, 'Usados', 2, 3),
    ]);
    expect(tree.map((n) => n.nombre)).toEqual(['Inmuebles', 'Vehículos']);
    const vehiculos = tree[1]!;
    expect(vehiculos.hijos.map((n) => n.nombre)).toEqual(['Ámbito', 'autos', 'Motos']);
    expect(vehiculos.hijos[1]!.hijos).toEqual([{ ...row(6, 'Usados', 2, 3), hijos: [] }]);
  });

  it('breaks nombre ties by id', () => {
    const tree = buildRubroTree([row(9, 'Autos', null, 1), row(3, 'autos', null, 1)]);
    expect(tree.map((n) => n.id)).toEqual([3, 9]);
  });

  it('drops rows whose parent is not part of the read', () => {
    expect(buildRubroTree([row(1, 'A', null, 1), row(2, 'B', 99, 2)]).map((n) => n.id)).toEqual([1]);
  });
});
