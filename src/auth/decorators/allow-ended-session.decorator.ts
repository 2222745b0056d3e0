import { SetMetadata } from '@nestjs/common';

export const ALLOW_ENDED_SESSION = 'allowEndedSession';

/**
 * Lets a route accept a valid access token of an active user whose session has already ended,
 * with `sessionActive: false` on the caller; every other check of the guard still applies. Only
 * for operations that must stay idempotent after they end the session themselves (sign-out), and
 * whose handler does nothing with such a token.
 */
export const AllowEndedSession = () => SetMetadata(ALLOW_ENDED_SESSION, true);
