/**
 * {@link FilePodSource}: a {@link PodSource} backed by a JSON or YAML file of
 * pods, either a list or `{ pods: [...] }`, each `{ namespace, name, node,
 * annotations?, ownerKind? }`. The file is watched (polled): when it
 * changes, the differences with the last accepted list become `add`,
 * `update` and `delete` events. A list is accepted only when it is whole
 * (see `watched-file.ts`): a file that cannot be read or parsed is reported
 * to `onError` and the last good list kept; replace the file atomically
 * (write, then rename).
 * @module
 */

import { z } from 'zod';
import { type Pod, type PodKey, podKey } from './pod.js';
import type { PodEvent, PodSource } from './pod-source.js';
import { parseListFile, type WatchedFileOptions, WatchedList } from './watched-file.js';

const PodSchema = z.object({
  namespace: z.string().min(1),
  name: z.string().min(1),
  node: z.string().min(1),
  annotations: z.record(z.string(), z.string()).optional(),
  ownerKind: z.string().optional(),
});

/**
 * Parse the text of a pods file (JSON, or YAML when `path` ends in `.yaml`
 * or `.yml`).
 * @throws Error naming the file and what is wrong.
 */
export function parsePodsFile(path: string, text: string): Pod[] {
  return parseListFile(path, text, PodSchema, 'pods').map((p) => ({
    namespace: p.namespace,
    name: p.name,
    node: p.node,
    ...(p.annotations !== undefined ? { annotations: p.annotations } : {}),
    ...(p.ownerKind !== undefined ? { ownerKind: p.ownerKind } : {}),
  }));
}

/** Options of {@link FilePodSource}. */
export type FilePodSourceOptions = WatchedFileOptions;

/** A pod source watching a JSON or YAML file. */
export class FilePodSource implements PodSource {
  private readonly pods: WatchedList<PodKey, Pod, PodEvent>;

  /**
   * Start reading and watching the file (see `WatchedFileOptions`): the
   * source is synced once its first list is accepted; until then, and
   * whenever the file cannot be read, parsed or accepted, `onError` hears
   * why.
   */
  constructor(
    readonly path: string,
    options: FilePodSourceOptions = {},
  ) {
    this.pods = new WatchedList(
      path,
      parsePodsFile,
      podKey,
      (type, pod) => ({ type, pod }),
      options,
    );
  }

  /** {@inheritDoc PodSource.list} */
  async list(): Promise<readonly Pod[]> {
    return this.pods.values();
  }

  /** {@inheritDoc PodSource.whenSynced} */
  whenSynced(): Promise<void> {
    return this.pods.whenSynced();
  }

  /** {@inheritDoc PodSource.subscribe} */
  subscribe(handler: (event: PodEvent) => void): () => void {
    return this.pods.subscribe(handler);
  }

  /**
   * Read the file again and emit the differences, if the list is accepted
   * (called by the watcher; callable directly).
   */
  reload(): Promise<void> {
    return this.pods.reload();
  }

  /** Stop watching. */
  close(): void {
    this.pods.close();
  }
}
