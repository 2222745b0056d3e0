import { Platform1763712000000 } from './1763712000000-platform.js';
import { LoginThrottle1763712100000 } from './1763712100000-login-throttle.js';
import { MediosFiscal1763712300000 } from './1763712300000-medios-fiscal.js';
import { Catalog1763712400000 } from './1763712400000-catalog.js';
import { AuditRead1763712500000 } from './1763712500000-audit-read.js';
import { AppendOnly1763712600000 } from './1763712600000-append-only.js';
import { Sessions1763712800000 } from './1763712800000-sessions.js';
import { RowVersions1763712900000 } from './1763712900000-row-versions.js';
import { ConsoleLists1763712950000 } from './1763712950000-console-lists.js';
import { AuditSeals1763713000000 } from './1763713000000-audit-seals.js';
import { CodeCollation1763713100000 } from './1763713100000-code-collation.js';
import { CodeOrder1763713200000 } from './1763713200000-code-order.js';
import { BookkeepingGuard1763713300000 } from './1763713300000-bookkeeping-guard.js';
import { EventIds1763713400000 } from './1763713400000-event-ids.js';
import { PermissionSetVersions1763713500000 } from './1763713500000-permission-set-versions.js';
import { SettledLoginAttempts1763713600000 } from './1763713600000-settled-login-attempts.js';
import { VersioningKeepsRacedVersions1763713700000 } from './1763713700000-versioning-keeps-raced-versions.js';
import { PasswordHashCollation1763713800000 } from './1763713800000-password-hash-collation.js';
import { PurgeKeepsEventIds1763713900000 } from './1763713900000-purge-keeps-event-ids.js';

/** PostgreSQL migrations in order. Add each new migration class here. */
export const POSTGRES_MIGRATIONS = [
  Platform1763712000000,
  LoginThrottle1763712100000,
  MediosFiscal1763712300000,
  Catalog1763712400000,
  AuditRead1763712500000,
  AppendOnly1763712600000,
  Sessions1763712800000,
  RowVersions1763712900000,
  ConsoleLists1763712950000,
  AuditSeals1763713000000,
  CodeCollation1763713100000,
  CodeOrder1763713200000,
  BookkeepingGuard1763713300000,
  EventIds1763713400000,
  PermissionSetVersions1763713500000,
  SettledLoginAttempts1763713600000,
  VersioningKeepsRacedVersions1763713700000,
  PasswordHashCollation1763713800000,
  PurgeKeepsEventIds1763713900000,
];
