import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { RoleEntity } from '../roles/role.entity.js';
import { RolesModule } from '../roles/roles.module.js';
import { AdminBootstrapService } from './admin-bootstrap.service.js';
import { PasswordPolicy } from './password-policy.service.js';
import { PasswordStrength } from './password-strength.js';
import { UserPasswordsService } from './user-passwords.service.js';
import { UserPermissionsService } from './user-permissions.service.js';
import { UserSessionsService } from './user-sessions.service.js';
import { UserEntity } from './user.entity.js';
import { UsersController } from './users.controller.js';
import { UsersService } from './users.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([UserEntity, RoleEntity]), RolesModule],
  controllers: [UsersController],
  providers: [
    AdminBootstrapService,
    UsersService,
    UserPasswordsService,
    UserPermissionsService,
    UserSessionsService,
    PasswordPolicy,
    PasswordStrength,
  ],
  exports: [AdminBootstrapService, UserPasswordsService],
})
export class UsersModule {}
