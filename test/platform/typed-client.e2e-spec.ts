import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createApiClient } from '../../clients/typescript/index.js';
import { type FlowContext, FLOWS, signIn } from '../../clients/typescript/test/console-flows.js';
import { TokenForge } from '../auth/support/auth-helpers.js';
import { TestApp } from '../support/test-app.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME } from '../support/test-env.js';

/**
 * The admin console's flows (clients/typescript/test/console-flows.ts, strict TypeScript, no
 * casts) run through the generated client and openapi-fetch against the service listening on a
 * real port, over HTTP, the way a browser or a Node frontend server calls it. Each flow is one
 * test; a new flow added to FLOWS runs here without touching this file.
 */
describe('typed client: the console flows against a running service', () => {
  let t: TestApp;
  let ctx: FlowContext;

  beforeAll(async () => {
    t = await TestApp.create();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.getHttpServer().address() as AddressInfo;
    const baseUrl = `http://127.0.0.1:${port}`;
    const forge = new TokenForge(t);
    const past = Math.floor(Date.now() / 1000) - 3600;
    ctx = {
      baseUrl,
      admin: (await signIn(baseUrl, ADMIN_USERNAME, ADMIN_PASSWORD)).client,
      anonymous: createApiClient({ baseUrl }),
      adminCredentials: { username: ADMIN_USERNAME, password: ADMIN_PASSWORD },
      signIn: (username, password) => signIn(baseUrl, username, password),
      tag: () => `f${randomBytes(4).toString('hex')}`,
      expiredAccessToken: (user) => forge.rs256(forge.claims(user, { iat: past - 900, exp: past })),
    };
  });
  afterAll(() => t.close());

  it.each(FLOWS.map((flow) => [flow.name, flow] as const))('%s', async (_name, flow) => {
    await flow.run(ctx);
  });
});
