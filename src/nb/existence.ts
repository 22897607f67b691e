/**
 * `mayExist` and `ifExists`: the one meaning they have on every create and
 * delete of the DSL.
 *
 * **Create (`…Add`, `…Create`).** Each kind of object has an *identity*: its
 * name (switch, port, router, router port, port group, address set, load
 * balancer, HA chassis group), or the attributes that tell it apart from its
 * siblings (an ACL's direction, priority and match on its switch or port
 * group; a policy's priority and match on its router; a route's prefix,
 * policy, route table, and nexthop for ECMP routes; a NAT rule's type,
 * external IP and logical IP on its router; a VIP on its load balancer).
 * - By default, creating an object whose identity already exists throws
 *   `AlreadyExistsError`.
 * - With `mayExist: true`, the call then **does nothing and returns the
 *   existing object's UUID**. The existing object is never modified: the
 *   other attributes given are *not* applied. To converge an existing object
 *   to a specification, use the `…Set…` operations or an `…Ensure`
 *   operation (`lrNatEnsure`, `lrRouteEnsure`, `lbSetVip`,
 *   `haChassisGroupSetChassisPriority`).
 * - `mayExist` never hides a conflict: an object of the same name that lives
 *   elsewhere (a port on another switch, a router port on another router),
 *   one that differs in what defines it (a router port's MAC, networks and
 *   peer, a nested port's parent and tag), or a NAT rule that shares the key
 *   but differs (same external IP, another logical IP), still throws
 *   `AlreadyExistsError`.
 *
 * **Delete (`…Del`).** By default, deleting an object that does not exist
 * throws `NotFoundError`. With `ifExists: true`, the call then does
 * nothing. Deleting a *set* of objects selected by a filter (`aclDel` with a
 * direction only, `lrNatDel` with a type only, …) is never an error when the
 * set is empty.
 *
 * In both cases, an ambiguous name (several switches called `sw0`) always
 * throws `AmbiguousNameError`.
 * @module
 */

/** Options of every create operation. */
export interface CreateOptions {
  /**
   * When the object already exists (same identity, same place): do nothing
   * and return its UUID, instead of throwing `AlreadyExistsError`.
   * The existing object is not modified.
   */
  readonly mayExist?: boolean | undefined;
}

/** Options of every delete operation. */
export interface DeleteOptions {
  /** When the object does not exist: do nothing, instead of throwing `NotFoundError`. */
  readonly ifExists?: boolean | undefined;
}

/**
 * `found`, the object a delete (or a read of one object) names; when it does
 * not exist (undefined): undefined with `ifExists` (the caller does
 * nothing), else `missing()` is thrown.
 *
 * ```ts
 * const row = existing(findNamed(t, 'Logical_Switch', sw), options, () => new NotFoundError('logical switch', sw));
 * if (row === undefined) return;
 * ```
 */
export function existing<R>(
  found: R | undefined,
  options: DeleteOptions,
  missing: () => Error,
): R | undefined {
  if (found !== undefined || options.ifExists === true) return found;
  throw missing();
}
