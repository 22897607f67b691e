/**
 * Per-node warm address pools: the node sources, the pool entries in NB,
 * the reconciler that keeps each pool between its bounds and serves pod
 * starts, its failures, and its prom-client metrics.
 * @module
 */

export * from './claims.js';
export * from './clock.js';
export * from './entry.js';
export * from './failure.js';
export * from './file-node-source.js';
export * from './metrics.js';
export * from './metrics-http.js';
export * from './node.js';
export * from './node-source.js';
export * from './programmatic-node-source.js';
export * from './reconciler.js';
export * from './reconciler-options.js';
