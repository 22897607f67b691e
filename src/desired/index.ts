/**
 * Declarative desired state: declare the rows an owner wants by natural
 * key ({@link DesiredState}), compare them with the replica
 * ({@link planDesired}, no I/O) and make the database match
 * ({@link applyDesired}: minimal, guarded transactions that delete only
 * the owner's rows).
 * @module
 */

export {
  type ApplyOptions,
  type ApplyResult,
  applyDesired,
  type DesiredClient,
} from './apply.js';
export {
  DesiredConflictError,
  DesiredStateError,
  type DesiredStateErrorDetails,
  type DesiredStateErrorKind,
} from './errors.js';
export type { KeySpecs, TableKeySpec } from './keys.js';
export {
  type ColumnChange,
  Plan,
  type PlanJson,
  type PlannedChange,
  type PlanOptions,
  renderPlan,
} from './plan.js';
export { planDesired } from './planner.js';
export {
  DesiredReconciler,
  desiredReconciler,
  type ReconcilerClient,
  type ReconcilerStats,
} from './reconciler.js';

export type { DesiredReader } from './snapshot.js';
export {
  type AddOptions,
  DEFAULT_OWNER_KEY,
  type DesiredRow,
  DesiredState,
  type DesiredStateOptions,
  KeyRef,
  keyOf,
  type WithKeyRefs,
} from './state.js';
