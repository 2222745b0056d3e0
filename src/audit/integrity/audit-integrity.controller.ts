import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../../auth/decorators/public.decorator.js';
import { RequirePermission } from '../../auth/decorators/require-permission.decorator.js';
import { AuditIntegrityService, type IntegrityStatus } from './audit-integrity.service.js';
import type { AuditPublicJwk } from './audit-signing-keys.js';
import { PERMISSIONS } from '../../auth/permissions.js';

const SEAL_SCHEMA = {
  type: 'object',
  nullable: true,
  properties: {
    seq: { type: 'integer' },
    firstId: { type: 'integer' },
    lastId: { type: 'integer' },
    upTo: { type: 'integer' },
    count: { type: 'integer' },
    sealedAt: { type: 'string' },
    keyId: { type: 'string' },
    sealHash: { type: 'string' },
  },
};

@ApiTags('audit')
@Controller()
export class AuditIntegrityController {
  constructor(private readonly integrity: AuditIntegrityService) {}

  @Get('api/v1/audit/integrity')
  @RequirePermission(PERMISSIONS.auditoria.ver)
  @ApiOperation({
    operationId: 'getAuditIntegrity',
    summary: 'Tamper evidence of the audit trail',
    description:
      'The newest seal of each event store (`audit_events`, `security_events`) and the result of the last verification (scheduled, or run from the CLI) ' +
      '(null before the first). Keep the newest `sealHash` outside the database: a later verification proves nothing was changed up to it. ' +
      'Seals are Ed25519-signed; the public keys are at GET /.well-known/audit-keys.json; `npm run cli -- audit:verify` verifies offline.',
  })
  @ApiOkResponse({
    schema: {
      type: 'object',
      properties: {
        stores: {
          type: 'object',
          properties: {
            audit_events: { type: 'object', properties: { newestSeal: SEAL_SCHEMA } },
            security_events: { type: 'object', properties: { newestSeal: SEAL_SCHEMA } },
          },
        },
        lastVerification: {
          type: 'object',
          nullable: true,
          properties: {
            verifiedAt: { type: 'string' },
            intact: { type: 'boolean' },
            findings: { type: 'integer' },
            summary: { type: 'object', additionalProperties: true, description: 'What the verification read, by store (counts and ranges).' },
          },
        },
      },
    },
  })
  status(): Promise<IntegrityStatus> {
    return this.integrity.status();
  }

  @Get('.well-known/audit-keys.json')
  @Public()
  @Header('cache-control', 'public, max-age=300')
  @ApiOperation({
    operationId: 'getAuditKeys',
    summary: 'Public keys of the audit seals',
    description:
      "Public. The Ed25519 keys (JWK, `kid` = RFC 7638 thumbprint = the seals' `keyId`) that verify the audit seals: the current signing key " +
      '(`current`) and the older keys still configured for verification after a rotation.',
  })
  @ApiOkResponse({
    schema: {
      type: 'object',
      required: ['keys', 'current'],
      properties: {
        keys: {
          type: 'array',
          items: {
            type: 'object',
            required: ['kty', 'crv', 'x', 'kid', 'alg', 'use'],
            properties: {
              kty: { type: 'string', enum: ['OKP'] },
              crv: { type: 'string', enum: ['Ed25519'] },
              x: { type: 'string', description: 'The public key, base64url' },
              kid: { type: 'string', description: "RFC 7638 thumbprint; the seals' `keyId`" },
              alg: { type: 'string', enum: ['EdDSA'] },
              use: { type: 'string', enum: ['sig'] },
            },
          },
        },
        current: { type: 'string', description: 'The `kid` of the key that signs new seals' },
      },
    },
  })
  keys(): { keys: AuditPublicJwk[]; current: string } {
    return this.integrity.publicKeys();
  }
}
