import type { AuditPageQuery } from './sql-dialect.js';

/**
 * An audit page request with every filter and a keyset position, for the dialect specs: each
 * engine's text for the same request is pinned there. Test-only (not built).
 */
export const FULL_AUDIT_PAGE_QUERY: AuditPageQuery = {
  actorUserId: 7,
  targetType: 'usuario',
  targetId: '42',
  from: '2025-01-01T00:00:00.000000000Z',
  to: '2025-03-31T23:59:59.999999900Z',
  after: { t: '2025-03-01T12:00:00.123456700Z', id: '1234' },
  rows: 51,
};
