import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from './decorators/public.decorator.js';
import { JwtKeys } from './jwt-keys.js';

@ApiTags('auth')
@Controller('.well-known')
export class JwksController {
  constructor(private readonly keys: JwtKeys) {}

  @Get('jwks.json')
  @Public()
  @Header('cache-control', 'public, max-age=300')
  @ApiOperation({
    operationId: 'getJwks',
    summary: 'Public keys (JWKS)',
    description: 'Public. The RS256 public key(s) that verify access tokens, so other services can check them.',
  })
  @ApiOkResponse({
    schema: {
      type: 'object',
      required: ['keys'],
      properties: {
        keys: {
          type: 'array',
          items: {
            type: 'object',
            required: ['kty', 'n', 'e', 'kid', 'alg', 'use'],
            properties: {
              kty: { type: 'string', enum: ['RSA'] },
              n: { type: 'string', description: 'The modulus, base64url' },
              e: { type: 'string', description: 'The public exponent, base64url' },
              kid: { type: 'string', description: "The tokens' `kid` header" },
              alg: { type: 'string', enum: ['RS256'] },
              use: { type: 'string', enum: ['sig'] },
            },
          },
        },
      },
    },
  })
  jwks(): { keys: object[] } {
    return { keys: [this.keys.publicJwk] };
  }
}
