import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AntiLockoutService } from './anti-lockout.service.js';
import { PermissionEntity, RolePermissionEntity } from './permission.entity.js';
import { PermissionsController } from './permissions.controller.js';
import { PermissionsService } from './permissions.service.js';
import { PointInTimeService } from './point-in-time.service.js';
import { RoleEntity } from './role.entity.js';
import { RolesController } from './roles.controller.js';
import { RolesService } from './roles.service.js';

/** Roles, the permission catalog, anti-lockout and point-in-time reads of the versioned tables. */
@Module({
  imports: [TypeOrmModule.forFeature([RoleEntity, PermissionEntity, RolePermissionEntity])],
  controllers: [RolesController, PermissionsController],
  providers: [RolesService, PermissionsService, AntiLockoutService, PointInTimeService],
  exports: [RolesService, PermissionsService, AntiLockoutService, PointInTimeService],
})
export class RolesModule {}
