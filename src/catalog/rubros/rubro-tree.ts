/**
 * Pure rules of the rubro tree (SEED 3.3, 8): levels, depth limit, cycles and the nested answer.
 * Roots are level 1; no node may sit below level `maxDepth`.
 */

/**
 * The level of the deepest node after placing a subtree of `subtreeHeight` levels (1 for a single
 * rubro) under a parent at `parentLevel` (0 when it becomes a root).
 */
export function deepestLevelAfterPlacing(parentLevel: number, subtreeHeight: number): number {
  return parentLevel + subtreeHeight;
}

/** true when placing that subtree there would put some node below the maximum depth. */
export function exceedsMaxDepth(parentLevel: number, subtreeHeight: number, maxDepth: number): boolean {
  return deepestLevelAfterPlacing(parentLevel, subtreeHeight) > maxDepth;
}

/**
 * true when moving `movedId` under the parent whose ancestor chain (the parent itself first, up to
 * its root) is `targetChainIds` would make the rubro its own ancestor.
 */
export function createsCycle(movedId: number, targetChainIds: readonly number[]): boolean {
  return targetChainIds.includes(movedId);
}

export interface RubroTreeRow {
  id: number;
  nombre: string;
  parentId: number | null;
  activo: boolean;
  tieneAvisos: boolean;
  nivel: number;
}

export interface RubroTreeNode extends RubroTreeRow {
  hijos: RubroTreeNode[];
}

const byNombre = new Intl.Collator('es', { sensitivity: 'base' });

/** Sibling order: by nombre (Spanish, case- and accent-insensitive), then by id for a stable answer. */
export function compareSiblings(a: Pick<RubroTreeRow, 'id' | 'nombre'>, b: Pick<RubroTreeRow, 'id' | 'nombre'>): number {
  return byNombre.compare(a.nombre, b.nombre) || a.id - b.id;
}

/**
 * Nests the flat rows of one tree read. Rows whose parent is not among the rows (an inactive
 * parent left out of the read) are dropped with their subtree, so a node never appears detached.
 */
export function buildRubroTree(rows: readonly RubroTreeRow[]): RubroTreeNode[] {
  const nodes = new Map<number, RubroTreeNode>();
  for (const row of rows) nodes.set(row.id, { ...row, hijos: [] });
  const roots: RubroTreeNode[] = [];
  for (const node of nodes.values()) {
    if (node.parentId === null) roots.push(node);
    else nodes.get(node.parentId)?.hijos.push(node);
  }
  const sort = (list: RubroTreeNode[]) => {
    list.sort(compareSiblings);
    for (const n of list) sort(n.hijos);
  };
  sort(roots);
  return roots;
}
