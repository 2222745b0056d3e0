import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IngresosBrutosController } from './ingresos-brutos.controller.js';
import { IngresosBrutosEntity } from './ingresos-brutos.entity.js';
import { IngresosBrutosService } from './ingresos-brutos.service.js';
import { ProvinciasController } from './provincias.controller.js';
import { TipoIvaEntity } from './tipo-iva.entity.js';
import { TiposIvaController } from './tipos-iva.controller.js';
import { TiposIvaService } from './tipos-iva.service.js';

/** The fiscal reference tables (docs/api.md "Fiscal tables"); their errors are `{error, message}`. */
@Module({
  imports: [TypeOrmModule.forFeature([TipoIvaEntity, IngresosBrutosEntity])],
  controllers: [ProvinciasController, TiposIvaController, IngresosBrutosController],
  providers: [TiposIvaService, IngresosBrutosService],
})
export class FiscalModule {}
