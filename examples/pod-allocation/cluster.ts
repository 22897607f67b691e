/**
 * The cluster the demo (`demo.ts`) and the controller process (`main.ts`)
 * run: the router `ovn-cluster`, the /16 `ovn-default` and the dual-stack
 * `dual`.
 * @module
 */

import type { ClusterTopology } from './controller/index.js';

/** The demo's topology: a /16 and a dual-stack subnet. */
export const DEMO_TOPOLOGY: ClusterTopology = {
  router: 'ovn-cluster',
  subnets: [
    { name: 'ovn-default', cidr: '10.16.0.0/16', excludeIps: ['10.16.0.2..10.16.0.9'] },
    {
      name: 'dual',
      cidr: '10.17.0.0/24,fd00:10:17::/64',
      gateway: '10.17.0.1,fd00:10:17::1',
      excludeIps: ['10.17.0.2..10.17.0.9'],
    },
  ],
  defaultSubnet: 'ovn-default',
};
