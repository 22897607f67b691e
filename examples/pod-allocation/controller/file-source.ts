/**
 * {@link FilePodSource}: a {@link PodSource} backed by a JSON or YAML file of
 * pods, either a list or `{ pods: [...] }`, each `{ namespace, name, node,
 * annotations?, ownerKind? }`. The file is watched (polled): when it
 * changes, the differences with the previous contents become `add`,
 * `update` and `delete` events. A file that does not parse is reported to
 * `onError` and ignored until it is fixed.
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
   * Read the file now.
   * @throws Error when the file cannot be read or parsed at construction.
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
    // The file was read whole by the constructor.
    return Promise.resolve();
  }

  /** {@inheritDoc PodSource.subscribe} */
  subscribe(handler: (event: PodEvent) => void): () => void {
    return this.pods.subscribe(handler);
  }

  /**
   * Read the file again and emit the differences (called by the watcher;
   * callable directly).
   */
  reload(): void {
    this.pods.reload();
  }

  /** Stop watching. */
  close(): void {
    this.pods.close();
  }
}
