import type { HttpResult, TestApp } from '../../support/test-app.js';
import { PROVINCIAS as PROVINCIA_LIST } from '../../../src/fiscal/provincias.js';
import { uid } from './reliability-app.js';

/** The jurisdiction codes, as the service lists them (fixtures need valid values, not a restated contract). */
export const PROVINCIAS = PROVINCIA_LIST.map((p) => p.codigo);

/** Today in America/Argentina/Buenos_Aires, `yyyy-MM-dd`, shifted by `days`. */
export function argentinaDate(days = 0): string {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Argentina/Buenos_Aires' }).format(new Date());
  const d = new Date(`${today}T12:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

let afip = 0;
let tipoIvaCode = 0;

/**
 * Data made through the API as the bootstrap admin, for the suites that need existing rows
 * (ids for paths, a medio for a seccion, an inactive row to reactivate…).
 */
export class Fixtures {
  private provincias = [...PROVINCIAS];

  constructor(
    readonly t: TestApp,
    readonly token: string,
  ) {}

  static async for(t: TestApp): Promise<Fixtures> {
    return new Fixtures(t, await t.adminToken());
  }

  private async ok(res: Promise<HttpResult>, what: string, status = 201): Promise<any> {
    const r = await res;
    if (r.status !== status) throw new Error(`fixture ${what}: ${r.status} ${r.text}`);
    return r.body;
  }

  post(path: string, body?: unknown) {
    return this.t.post(path, body, { token: this.token });
  }

  medio(activo = true): Promise<{ id: number; codigo: string }> {
    return this.withState(
      this.ok(this.post('/api/v1/admin/medios', { codigo: `M_${uid()}`, nombre: `Medio ${uid()}` }), 'medio'),
      '/api/v1/admin/medios',
      activo,
    );
  }

  async seccion(activo = true, medioId?: number): Promise<{ id: number; medioId: number }> {
    medioId ??= (await this.medio()).id;
    return this.withState(
      this.ok(this.post('/api/v1/admin/secciones', { medioId, codigo: `S_${uid()}`, nombre: `Sección ${uid()}`, tipo: 'comercial' }), 'seccion'),
      '/api/v1/admin/secciones',
      activo,
    );
  }

  async puntoDeVenta(activo = true, medioId?: number): Promise<{ id: number; medioId: number; numeroAFIP: number }> {
    medioId ??= (await this.medio()).id;
    return this.withState(
      this.ok(
        this.post('/api/v1/admin/puntos-de-venta', { medioId, numeroAFIP: nextAfip(), nombre: `PDV ${uid()}`, domicilio: 'Calle 1' }),
        'punto de venta',
      ),
      '/api/v1/admin/puntos-de-venta',
      activo,
    );
  }

  tipoIva(activo = true): Promise<{ id: number; codigo: number }> {
    return this.withState(
      this.ok(this.post('/api/v1/admin/fiscal/tipos-iva', { codigo: nextTipoIvaCode(), descripcion: `IVA ${uid()}`, porcentaje: 10.5 }), 'tipo iva'),
      '/api/v1/admin/fiscal/tipos-iva',
      activo,
    );
  }

  /** A provincia with no active ingresos brutos entry (each fixture takes its own). */
  freeProvincia(): string {
    const p = this.provincias.shift();
    if (!p) throw new Error('no provincia left for ingresos brutos fixtures');
    return p;
  }

  ingresosBrutos(activo = true): Promise<{ id: number; provincia: string }> {
    return this.withState(
      this.ok(
        this.post('/api/v1/admin/fiscal/ingresos-brutos', { provincia: this.freeProvincia(), descripcion: `IIBB ${uid()}`, alicuota: 3.5 }),
        'ingresos brutos',
      ),
      '/api/v1/admin/fiscal/ingresos-brutos',
      activo,
    );
  }

  rubro(activo = true, parentId: number | null = null): Promise<{ id: number; nombre: string }> {
    return this.withState(
      this.ok(this.post('/api/v1/admin/rubros', { nombre: `Rubro ${uid()}`, parentId }), 'rubro'),
      '/api/v1/admin/rubros',
      activo,
    );
  }

  productType(activo = true): Promise<{ id: number; codigo: string }> {
    return this.withState(
      this.ok(this.post('/api/v1/admin/product-types', { codigo: `PT_${uid()}`, nombre: `Tipo ${uid()}`, descripcion: 'fixture' }), 'product type'),
      '/api/v1/admin/product-types',
      activo,
    );
  }

  async product(activo = true): Promise<{ id: number; codigo: string; rubroId: number; productTypeId: number }> {
    const rubroId = (await this.rubro()).id;
    const productTypeId = (await this.productType()).id;
    return this.withState(
      this.ok(this.post('/api/v1/admin/products', { codigo: `P_${uid()}`, nombre: `Producto ${uid()}`, rubroId, productTypeId }), 'product'),
      '/api/v1/admin/products',
      activo,
    );
  }

  price(productId: number, days = 1, monto = 100): Promise<{ id: number }> {
    return this.ok(this.post(`/api/v1/admin/products/${productId}/prices`, { fechaVigencia: argentinaDate(days), monto }), 'price');
  }

  role(activo = true): Promise<{ codigo: string }> {
    const codigo = `rol_${uid().toLowerCase()}`;
    return this.ok(this.post('/api/v1/roles', { codigo, nombre: `Rol ${codigo}`, descripcion: 'fixture' }), 'role').then(async (role) => {
      if (!activo) await this.ok(this.t.delete(`/api/v1/roles/${codigo}`, { token: this.token }), 'role deactivate', 204);
      return role;
    });
  }

  async user(activo = true, rol = 'cajero'): Promise<{ id: number; username: string; password: string }> {
    const username = `u_${uid().toLowerCase()}`;
    const password = `Pw-${uid()}-${uid()}x`;
    const user = await this.ok(
      this.post('/api/v1/users', { username, password, nombre: 'Fix', apellido: 'Ture', email: `${username}@example.test`, rol }),
      'user',
    );
    if (!activo) await this.ok(this.post(`/api/v1/users/${user.id}/deactivate`), 'user deactivate', 200);
    return { id: user.id, username, password };
  }

  private async withState<T extends { id: number }>(created: Promise<T>, base: string, activo: boolean): Promise<T> {
    const row = await created;
    if (!activo) await this.ok(this.post(`${base}/${row.id}/deactivate`), `${base} deactivate`, 200);
    return row;
  }
}

export function nextAfip(): number {
  afip = (afip % 99_999) + 1;
  return afip;
}

const TIPO_IVA_BASE = 100_000 + Math.floor(Math.random() * 1_000_000) * 100;

/** A TipoDeIva codigo no other fixture of this process uses. */
export function nextTipoIvaCode(): number {
  tipoIvaCode += 1;
  return TIPO_IVA_BASE + tipoIvaCode;
}
