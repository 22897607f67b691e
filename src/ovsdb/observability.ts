/**
 * The observability names every entry point that takes them exports:
 * the metrics hook interfaces, the prom-client adapter and the structural
 * OpenTelemetry tracer types (see docs/observability.md).
 * @module
 */

export type {
  ClientHealthSample,
  ClientMetrics,
  ClientMetricsRecorder,
  ClientMetricsTarget,
  ReconnectReason,
  RpcErrorKind,
  ServerMetrics,
  ServerMetricsRecorder,
  ServerMetricsTarget,
  ServerTransactionOutcome,
  TransactionOutcomeLabel,
} from './metrics.js';
export {
  DEFAULT_TRANSACTION_BUCKETS,
  type PromClientLike,
  type PromCounterLike,
  type PrometheusMetrics,
  type PrometheusMetricsOptions,
  type PromGaugeLike,
  type PromHistogramLike,
  type PromLabels,
  type PromMetricConfig,
  type PromRegistryLike,
  prometheusMetrics,
} from './metrics-prometheus.js';
export type {
  SpanAttributes,
  SpanAttributeValue,
  SpanLike,
  SpanOptionsLike,
  Tracer,
} from './tracing.js';
