import type { MigrationInterface } from 'typeorm';

/**
 * `users.password_hash` compares exactly on SQL Server as it always has here (the sign-in claims
 * its row only while the hash it just verified is still the stored one). The SQL Server
 * counterpart (migrations/mssql/1763713800000-password-hash-collation.ts) gives the column a
 * binary collation; this one keeps the two migration lists parallel and changes nothing.
 */
export class PasswordHashCollation1763713800000 implements MigrationInterface {
  name = 'PasswordHashCollation1763713800000';

  async up(): Promise<void> {}

  async down(): Promise<void> {}
}
