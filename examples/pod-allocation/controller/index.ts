/**
 * The pod controller: pod sources, the work queue and its rate limiters,
 * reconcile and delete of one pod, GC, and the controller that ties them.
 * @module
 */

export * from './active-standby.js';
export * from './annotations.js';
export * from './controller.js';
export * from './failure.js';
export * from './file-source.js';
export * from './keyed-lock.js';
export * from './log.js';
export * from './pod.js';
export * from './pod-source.js';
export * from './programmatic-source.js';
export * from './rate-limiter.js';
export * from './reconcile.js';
export * from './synced.js';
export * from './topology.js';
export * from './work-queue.js';
