/**
 * Pure rules of the rubro tree (docs/api.md "Catalog"): levels, depth limit, cycles and the nested answer.
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

/** A rubro as the flat tree read gives it: its level is only known once it hangs from a root. */
export type RubroFlatRow = Omit<RubroTreeRow, 'nivel'>;

export interface RubroTreeNode extends RubroTreeRow {
  hijos: RubroTreeNode[];
}

/**
 * The deepest level a tree read descends to: far above any allowed depth (RUBROS_MAX_DEPTH is at
 * most 50), it only bounds what a corrupted table could make the answer nest.
 */
export const TREE_LEVEL_GUARD = 100;

const byNombre = new Intl.Collator('es', { sensitivity: 'base' });

/** Sibling order: by nombre (Spanish, case- and accent-insensitive), then by id for a stable answer. */
export function compareSiblings(a: Pick<RubroTreeRow, 'id' | 'nombre'>, b: Pick<RubroTreeRow, 'id' | 'nombre'>): number {
  return byNombre.compare(a.nombre, b.nombre) || a.id - b.id;
}

/**
 * Nests the flat rows of one tree read, giving each node its level (roots are 1) on the way down
 * from the roots. Only what hangs from a root is answered: a row whose parent is not among the rows
 * (an inactive parent left out of the read) is dropped with its subtree, so a node never appears
 * detached, and rows of a corrupted cyclic chain, which never reach a root, are dropped as well.
 * Nodes below `TREE_LEVEL_GUARD` are cut off. The nodes are the answer's objects: built once here.
 */
export function buildRubroTree(rows: readonly RubroFlatRow[]): RubroTreeNode[] {
  const nodes = rows.map((r): RubroTreeNode => ({
    id: r.id,
    nombre: r.nombre,
    parentId: r.parentId,
    activo: r.activo,
    tieneAvisos: r.tieneAvisos,
    nivel: 0,
    hijos: [],
  }));
  const byId = new Map<number, RubroTreeNode>();
  for (const node of nodes) byId.set(node.id, node);
  const roots: RubroTreeNode[] = [];
  for (const node of nodes) {
    if (node.parentId === null) roots.push(node);
    else byId.get(node.parentId)?.hijos.push(node);
  }
  // Level by level: a node is reached once, through its only parent, so a cycle is never entered.
  roots.sort(compareSiblings);
  let level = roots;
  for (let nivel = 1; level.length; nivel++) {
    const next: RubroTreeNode[] = [];
    for (const node of level) {
      node.nivel = nivel;
      if (nivel === TREE_LEVEL_GUARD) node.hijos = [];
      if (node.hijos.length > 1) node.hijos.sort(compareSiblings); // most nodes have 0 or 1: skip the call
      for (const child of node.hijos) next.push(child);
    }
    level = next;
  }
  return roots;
}
