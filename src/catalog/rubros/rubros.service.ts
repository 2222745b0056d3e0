import { Inject, Injectable } from '@nestjs/common';
import { Activation } from '../../common/activation/activation.js';
import { Edits } from '../../common/activation/edits.js';
import { AuditService } from '../../audit/audit.service.js';
import { APP_CONFIG, type AppConfig } from '../../common/config/index.js';
import { Clock } from '../../common/context/clock.js';
import { DomainError, NotFoundError } from '../../common/errors/domain-error.js';
import { SQL_DIALECT, type SqlDialect } from '../../database/dialects/index.js';
import { uniqueOr409 } from '../../common/errors/unique-or-409.js';
import { type CreateRubroDto, type MoveRubroDto, RubroDto, type UpdateRubroDto } from './dto/rubro.dto.js';
import { RubroEntity } from './rubro.entity.js';
import { RubrosRepository, type RubroWithChain } from './rubros.repository.js';
import { buildRubroTree, createsCycle, exceedsMaxDepth, type RubroTreeNode, type RubroTreeRow } from './rubro-tree.js';

/**
 * The rubro tree (docs/api.md "Catalog").
 *
 * Concurrency: every change first takes the tree lock — a move exclusively, everything else
 * shared — and then row-locks the rubros it checks (in id order). So a move runs alone: the
 * ancestors, levels and subtree heights it reads cannot change until it commits, and two moves can
 * never build a cycle together (locking only the moved node and its new parent would not be enough:
 * A→B1 and B→A1 lock disjoint rows and together close the loop A→B1→B→A1→A). Creates keep running
 * side by side, so the sibling-name rule is guaranteed by the store's unique index.
 */
@Injectable()
export class RubrosService {
  constructor(
    private readonly rubros: RubrosRepository,
    private readonly audit: AuditService,
    private readonly activation: Activation,
    private readonly edits: Edits,
    private readonly clock: Clock,
    @Inject(SQL_DIALECT) private readonly dialect: SqlDialect,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The nodes are the answer as they are: no copy into DTO objects (10,000 nodes and more). */
  async tree(includeInactive: boolean): Promise<RubroTreeNode[]> {
    return buildRubroTree(await this.rubros.treeRows(includeInactive));
  }

  async get(id: number): Promise<RubroDto> {
    return RubroDto.of((await this.find(id)).rubro);
  }

  async create(dto: CreateRubroDto): Promise<RubroDto> {
    const parentId = dto.parentId ?? null;
    await this.rubros.lockTree('shared');
    if (parentId !== null) {
      await this.rubros.lockRows([parentId], 'pessimistic_read');
      const parent = await this.find(parentId);
      this.checkCanHoldChildren(parent.rubro);
      this.checkDepth(parent.rubro.nivel, 1);
    }
    await this.checkNameFree(parentId, dto.nombre);
    const now = this.clock.now();
    const id = await uniqueOr409(this.dialect, duplicateMessage(dto.nombre), () =>
      this.rubros.insert({ nombre: dto.nombre, parentId, activo: true, createdAt: now, updatedAt: now }),
    );
    await this.audit.record('rubro.create', 'rubro', id, { after: { nombre: dto.nombre, parentId } });
    return this.get(id);
  }

  async update(id: number, dto: UpdateRubroDto): Promise<RubroDto> {
    await this.rubros.lockTree('shared');
    await this.rubros.lockRows([id], 'pessimistic_write');
    const { rubro } = await this.find(id);
    const edited = await this.edits.apply({
      entity: RubroEntity,
      row: rubro,
      changes: { nombre: dto.nombre },
      resource: 'rubro',
      check: async () => {
        if (rubro.activo) await this.checkNameFree(rubro.parentId, dto.nombre, id);
      },
      write: (changes) => uniqueOr409(this.dialect, duplicateMessage(dto.nombre), () => this.rubros.update(id, changes)),
    });
    return RubroDto.of(edited);
  }

  async move(id: number, dto: MoveRubroDto): Promise<RubroDto> {
    const parentId = dto.parentId;
    await this.rubros.lockTree('exclusive');
    await this.rubros.lockRows(parentId === null ? [id] : [id, parentId], 'pessimistic_write');
    const { rubro } = await this.find(id);
    if (rubro.parentId === parentId) return RubroDto.of(rubro);

    let parentLevel = 0;
    if (parentId !== null) {
      const parent = await this.find(parentId);
      if (
        createsCycle(
          id,
          parent.chain.map((r) => r.id),
        )
      ) {
        throw new DomainError('movimiento_invalido', `El rubro ${id} no se puede mover debajo de sí mismo ni de un descendiente`);
      }
      this.checkCanHoldChildren(parent.rubro);
      parentLevel = parent.rubro.nivel;
    }
    this.checkDepth(parentLevel, await this.rubros.subtreeHeight(id));
    if (rubro.activo) await this.checkNameFree(parentId, rubro.nombre, id);
    await uniqueOr409(this.dialect, duplicateMessage(rubro.nombre), () => this.rubros.update(id, { parentId, updatedAt: this.clock.now() }));
    await this.audit.record('rubro.move', 'rubro', id, { before: { parentId: rubro.parentId }, after: { parentId } });
    return this.get(id);
  }

  /** Guards in the seed's order: an active child first, then an active product. Idempotent. */
  async deactivate(id: number): Promise<RubroDto> {
    await this.rubros.lockTree('shared');
    await this.rubros.lockRows([id], 'pessimistic_write');
    const { rubro } = await this.find(id);
    return this.setActivo(rubro, false, async () => {
      if (await this.rubros.hasActiveChildren(id)) {
        throw new DomainError('rubro_con_hijos_activos', `El rubro ${id} tiene rubros hijos activos`);
      }
      if (await this.rubros.hasActiveProducts(id)) {
        throw new DomainError('rubro_con_productos_activos', `El rubro ${id} tiene productos activos`);
      }
    });
  }

  /**
   * An active rubro always hangs from active ancestors: the parent must be active (409
   * `rubro_inactivo`), and may hold children (a rubro with avisos is a leaf: 409
   * `rubro_con_avisos`, as for a create or a move under it). Idempotent.
   */
  async reactivate(id: number): Promise<RubroDto> {
    await this.rubros.lockTree('shared');
    const [locked] = await this.rubros.lockRows([id], 'pessimistic_write');
    if (locked?.parentId) await this.rubros.lockRows([locked.parentId], 'pessimistic_read');
    const { rubro, chain } = await this.find(id);
    return this.setActivo(rubro, true, async () => {
      const parent = chain[1];
      if (parent) this.checkCanHoldChildren(parent);
      await this.checkNameFree(rubro.parentId, rubro.nombre, id);
    });
  }

  /**
   * For products: the rubro exists (404) and is active (409 `rubro_inactivo`). It stays
   * share-locked until the request's transaction ends, so a concurrent deactivation waits.
   */
  async requireActiveForProduct(id: number): Promise<void> {
    const [rubro] = await this.rubros.lockRows([id], 'pessimistic_read');
    if (!rubro) throw new NotFoundError('Rubro', id);
    if (!rubro.activo) throw new DomainError('rubro_inactivo', `El rubro ${id} está inactivo`);
  }

  private async setActivo(rubro: RubroTreeRow, activo: boolean, check: () => Promise<void>): Promise<RubroDto> {
    const changed = await this.activation.set({
      entity: RubroEntity,
      row: rubro,
      activo,
      resource: 'rubro',
      check,
      // sibling names are unique among active rubros: a racing reactivation is a 409
      write: (changes) => uniqueOr409(this.dialect, duplicateMessage(rubro.nombre), () => this.rubros.update(rubro.id, changes)),
    });
    return RubroDto.of(changed);
  }

  private async find(id: number): Promise<RubroWithChain> {
    const found = await this.rubros.findWithChain(id);
    if (!found) throw new NotFoundError('Rubro', id);
    return found;
  }

  /** A new parent must be active (409 `rubro_inactivo`) and have no avisos (leaf rule, 409 `rubro_con_avisos`). */
  private checkCanHoldChildren(parent: RubroTreeRow): void {
    if (!parent.activo) throw new DomainError('rubro_inactivo', `El rubro padre ${parent.id} está inactivo`);
    if (parent.tieneAvisos) throw new DomainError('rubro_con_avisos', `El rubro ${parent.id} tiene avisos: es una hoja y no admite hijos`);
  }

  private checkDepth(parentLevel: number, subtreeHeight: number): void {
    const max = this.config.rubrosMaxDepth;
    if (exceedsMaxDepth(parentLevel, subtreeHeight, max)) {
      throw new DomainError('profundidad_maxima', `El árbol de rubros admite hasta ${max} niveles`);
    }
  }

  private async checkNameFree(parentId: number | null, nombre: string, exceptId?: number): Promise<void> {
    if (await this.rubros.activeSiblingNamed(parentId, nombre, exceptId)) throw new DomainError('duplicado', duplicateMessage(nombre));
  }
}

function duplicateMessage(nombre: string): string {
  return `Ya existe un rubro activo llamado "${nombre}" bajo el mismo padre`;
}
