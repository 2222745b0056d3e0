import { Platform1763712000000 } from './1763712000000-platform.js';

/** PostgreSQL migrations in order. Add each new migration class here. */
export const POSTGRES_MIGRATIONS = [Platform1763712000000];
