/**
 * Observability: the metrics hooks of the database client and of the
 * in-memory server (`metrics.ts`), their prom-client adapter
 * (`prometheus.ts`) and the structural OpenTelemetry tracer types
 * (`tracing.ts`). Nothing here imports the rest of ovnkit; `ovnkit/client`
 * and `ovnkit/server`, whose options take them, export these names (see
 * docs/observability.md).
 * @module
 */

export type * from './metrics.js';
export * from './prometheus.js';
export type {
  SpanAttributes,
  SpanAttributeValue,
  SpanLike,
  SpanOptionsLike,
  Tracer,
} from './tracing.js';
