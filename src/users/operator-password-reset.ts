import type { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { RequestContext } from '../common/context/request-context.js';
import { AdminBootstrapService } from './admin-bootstrap.service.js';
import { UserPasswordsService } from './user-passwords.service.js';
import { UserEntity } from './user.entity.js';

/**
 * Operator recovery (the CLI's `admin:reset-password`, e.g. for a locked-out admin): a temporary
 * password for a user with the same effects and audit event as POST /api/v1/users/{id}/password-reset,
 * the actor being the `system` user. Returns undefined when the user does not exist.
 */
export async function resetPasswordAsSystem(app: INestApplicationContext, username: string): Promise<string | undefined> {
  const user = await app.get(DataSource).getRepository(UserEntity).findOneBy({ username });
  // exactly the stored name: SQL Server's comparison ignores trailing spaces and width
  if (user?.username !== username) return undefined;
  const systemId = await app.get(AdminBootstrapService).ensureSystemUser();
  // the service opens its own transaction once the temporary password is hashed
  const result = await app.get(RequestContext).runAs(systemId, () => app.get(UserPasswordsService).resetByOperator(user.id));
  return result.temporaryPassword;
}
