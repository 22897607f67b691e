/**
 * The pod controller as a long-running process: pods and nodes from watched
 * files (`FilePodSource`, `FileNodeSource`), NB from a remote, the cluster
 * of the demo (`cluster.ts`), warm pools when a nodes file is given.
 *
 * ```sh
 * node --import tsx examples/pod-allocation/main.ts --nb unix:/var/run/ovn/ovnnb_db.sock \
 *   --pods pods.yaml [--nodes nodes.yaml] [--poll-ms 250]
 * ```
 * (inside the ovnkit repository, add `--conditions=ovnkit-source`). It logs
 * JSON lines on stderr (reconciles, failures, and the files it could not
 * read or accept), prints `ready` on stdout once both controllers have
 * started (their sources synced and a first GC pass run), and stops on
 * SIGTERM or SIGINT. Replace the files atomically (write another file,
 * then rename it over): see README.md, "Node and pod files".
 * @module
 */

import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { connectDatabase } from 'ovnkit/client';
import { createNb, NB } from 'ovnkit/nb';
import { DEMO_TOPOLOGY } from './cluster.js';
import { FilePodSource, jsonLogSink, PodController } from './controller/index.js';
import { FileNodeSource, POOL_INDEXES, PoolReconciler } from './pools/index.js';

/** Run the controller until SIGTERM or SIGINT. */
export async function main(argv: readonly string[]): Promise<void> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      nb: { type: 'string' },
      pods: { type: 'string' },
      nodes: { type: 'string' },
      'poll-ms': { type: 'string', default: '250' },
    },
    strict: true,
  });
  if (values.nb === undefined || values.pods === undefined) {
    throw new TypeError('usage: main.ts --nb REMOTE --pods FILE [--nodes FILE] [--poll-ms MS]');
  }
  const intervalMs = Number(values['poll-ms']);
  if (!Number.isInteger(intervalMs) || intervalMs < 1) {
    throw new TypeError(`--poll-ms: expected a positive number of ms, got ${values['poll-ms']}`);
  }
  const log = jsonLogSink();
  const onError = (e: Error) =>
    log({ time: new Date().toISOString(), level: 'error', msg: 'source', error: e.message });
  const client = connectDatabase({ remotes: values.nb, model: NB, indexes: POOL_INDEXES });
  const pods = new FilePodSource(values.pods, { intervalMs, onError });
  const nodes =
    values.nodes === undefined
      ? undefined
      : new FileNodeSource(values.nodes, { intervalMs, onError });
  let controller: PodController | undefined;
  let pools: PoolReconciler | undefined;
  try {
    await client.ready;
    const nb = createNb(client);
    pools = nodes === undefined ? undefined : new PoolReconciler({ nb, nodes, log });
    controller = new PodController({ nb, source: pods, topology: DEMO_TOPOLOGY, pools, log });
    await controller.start();
    await pools?.start();
    process.stdout.write('ready\n');
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
  } finally {
    await pools?.stop();
    await controller?.stop();
    pods.close();
    nodes?.close();
    await client.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then(
    () => process.exit(0),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
