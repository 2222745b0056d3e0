import { PrimaryColumn } from 'typeorm';
import { bigintTransformer, TIMESTAMP } from '../database/column-types.js';

/**
 * The key both append-only event stores (audit_events, security_events) share: a generated bigint
 * id and `occurred_at`, the column they are partitioned by monthly, which must therefore be part
 * of the primary key.
 */
export abstract class EventRow {
  @PrimaryColumn({ type: 'bigint', generated: 'increment', transformer: bigintTransformer })
  id!: number;

  @PrimaryColumn({ name: 'occurred_at', type: TIMESTAMP, default: () => 'CURRENT_TIMESTAMP' })
  occurredAt!: Date;
}
