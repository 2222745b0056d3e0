import { describe, expect, it } from '@jest/globals';
import {
  buildRubroTree,
  createsCycle,
  deepestLevelAfterPlacing,
  exceedsMaxDepth,
  type RubroFlatRow,
  type RubroTreeNode,
  TREE_LEVEL_GUARD,
} from './rubro-tree.js';

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
  const row = (id: number, nombre: string, parentId: number | null): RubroFlatRow => ({ id, nombre, parentId, activo: true, tieneAvisos: false });
  const ids = (nodes: RubroTreeNode[]): number[] => nodes.flatMap((n) => [n.id, ...ids(n.hijos)]);

  it('nests rows under their parents and orders siblings by nombre, ignoring case and accents', () => {
    const tree = buildRubroTree([
      row(1, 'Vehículos', null),
      row(2, 'autos', 1),
      row(3, 'Motos', 1),
      row(4, 'Ámbito', 1),
      row(5, 'Inmuebles', null),
      row(6, 'Usados', 2),
    ]);
    expect(tree.map((n) => n.nombre)).toEqual(['Inmuebles', 'Vehículos']);
    const vehiculos = tree[1]!;
    expect(vehiculos.hijos.map((n) => n.nombre)).toEqual(['Ámbito', 'autos', 'Motos']);
    expect(vehiculos.hijos[1]!.hijos).toEqual([{ ...row(6, 'Usados', 2), nivel: 3, hijos: [] }]);
  });

  it('gives roots level 1 and each child its parent level plus one, whatever the order of the rows', () => {
    const tree = buildRubroTree([row(4, 'D', 3), row(3, 'C', 2), row(2, 'B', 1), row(1, 'A', null), row(5, 'E', 1)]);
    const levels: Record<number, number> = {};
    const visit = (nodes: RubroTreeNode[]) => nodes.forEach((n) => ((levels[n.id] = n.nivel), visit(n.hijos)));
    visit(tree);
    expect(levels).toEqual({ 1: 1, 2: 2, 3: 3, 4: 4, 5: 2 });
  });

  it('answers nodes with exactly the keys of the answer, in its order', () => {
    const [node] = buildRubroTree([{ ...row(1, 'A', null), activo: false, tieneAvisos: true }]);
    expect(Object.keys(node!)).toEqual(['id', 'nombre', 'parentId', 'activo', 'tieneAvisos', 'nivel', 'hijos']);
    expect(node).toEqual({ id: 1, nombre: 'A', parentId: null, activo: false, tieneAvisos: true, nivel: 1, hijos: [] });
  });

  it('breaks nombre ties by id', () => {
    const tree = buildRubroTree([row(9, 'Autos', null), row(3, 'autos', null)]);
    expect(tree.map((n) => n.id)).toEqual([3, 9]);
  });

  it('drops rows whose parent is not part of the read', () => {
    expect(buildRubroTree([row(1, 'A', null), row(2, 'B', 99)]).map((n) => n.id)).toEqual([1]);
  });

  it('drops the whole subtree under a parent missing from the read (an inactive ancestor left out)', () => {
    // 2 (missing) → 3 → 4 → 5: nothing under the missing rubro is answered
    const tree = buildRubroTree([row(1, 'A', null), row(3, 'C', 2), row(4, 'D', 3), row(5, 'E', 4), row(6, 'F', 1)]);
    expect(ids(tree)).toEqual([1, 6]);
  });

  it('drops the rows of a cyclic parent chain, and what hangs from them, without looping', () => {
    // 2 → 3 → 4 → 2 never reaches a root; 5 hangs from the cycle; 7 is its own parent
    const tree = buildRubroTree([row(1, 'A', null), row(2, 'B', 4), row(3, 'C', 2), row(4, 'D', 3), row(5, 'E', 3), row(7, 'G', 7), row(8, 'H', 1)]);
    expect(ids(tree)).toEqual([1, 8]);
  });

  it('stops nesting at the guard level of a corrupted chain', () => {
    const chain = Array.from({ length: TREE_LEVEL_GUARD + 5 }, (_, i) => row(i + 1, `R${i + 1}`, i === 0 ? null : i));
    const tree = buildRubroTree(chain);
    expect(ids(tree)).toHaveLength(TREE_LEVEL_GUARD);
    let deepest = tree[0]!;
    while (deepest.hijos.length) deepest = deepest.hijos[0]!;
    expect(deepest.nivel).toBe(TREE_LEVEL_GUARD);
  });

  it('answers an empty tree for no rows', () => {
    expect(buildRubroTree([])).toEqual([]);
  });
});
