import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MedioEntity } from './medio.entity.js';
import { MediosController } from './medios.controller.js';
import { MediosService } from './medios.service.js';
import { PuntoDeVentaEntity } from './puntos-de-venta/punto-de-venta.entity.js';
import { PuntosDeVentaController } from './puntos-de-venta/puntos-de-venta.controller.js';
import { PuntosDeVentaService } from './puntos-de-venta/puntos-de-venta.service.js';
import { SeccionEntity } from './seccion.entity.js';
import { SeccionesController } from './secciones.controller.js';
import { SeccionesService } from './secciones.service.js';

/** Medios, their secciones and their puntos de venta (docs/api.md "Medios, secciones and puntos de venta"). */
@Module({
  imports: [TypeOrmModule.forFeature([MedioEntity, SeccionEntity, PuntoDeVentaEntity])],
  controllers: [MediosController, SeccionesController, PuntosDeVentaController],
  providers: [MediosService, SeccionesService, PuntosDeVentaService],
})
export class MediosModule {}
