/**
 * A pod as the controller sees it: namespace, name, node and annotations
 * (what a Kubernetes informer would hand over), and the names derived from
 * it (the key `ns/name` and the logical switch port name `name.ns`).
 * @module
 */

/** A pod. */
export interface Pod {
  readonly namespace: string;
  readonly name: string;
  /** The node it is scheduled on. */
  readonly node: string;
  /** The pod's annotations (inputs such as `ovn.kubernetes.io/ip_address`). */
  readonly annotations?: Readonly<Record<string, string>> | undefined;
  /** The kind of the pod's owner (`StatefulSet` makes `name-N` take the N-th pool entry). */
  readonly ownerKind?: string | undefined;
}

/** The key of a pod, `namespace/name`. */
export type PodKey = string;

/** The key of a pod, `namespace/name`. */
export function podKey(pod: Pick<Pod, 'namespace' | 'name'>): PodKey {
  return `${pod.namespace}/${pod.name}`;
}

/** The logical switch port of a pod: `name.namespace` (as kube-ovn names it). */
export function portName(key: PodKey): string {
  const slash = key.indexOf('/');
  return `${key.slice(slash + 1)}.${key.slice(0, slash)}`;
}

/** The ordinal of a StatefulSet pod (`web-3` → 3), or undefined for other pods. */
export function statefulSetOrdinal(pod: Pod): number | undefined {
  if (pod.ownerKind !== 'StatefulSet') return undefined;
  const m = /-(\d+)$/.exec(pod.name);
  return m === null ? undefined : Number(m[1]);
}
