/**
 * The program of the NB version matrix: {@link TOPOLOGY} written with the
 * DSL in one transaction. It is typed by the bundled model here; the matrix
 * and the codegen type-check make copies typed by models generated from
 * each NB schema (`topologyFor` in `matrix-program.ts` rewrites the model
 * import), so the very same text compiles and runs with each.
 */

import type { NBTables as Model } from '../../../src/nb/index.js';
import {
  connectSwitchToRouter,
  dhcpOptionsCreate,
  lbAdd,
  lrAdd,
  lrNatAdd,
  lrRouteAdd,
  lsAdd,
  lsLbAdd,
  lspAdd,
  lspSetDhcpv4Options,
  type NbTxn,
  pgAdd,
} from '../../../src/nb/index.js';
import { TOPOLOGY } from './matrix-program.js';

/** Write {@link TOPOLOGY} in one transaction. */
export function buildTopology(t: NbTxn<Model>): void {
  const T = TOPOLOGY;
  for (const [sw, ports] of Object.entries(T.switches)) {
    lsAdd(t, sw);
    for (const [port, address] of Object.entries(ports)) {
      lspAdd(t, sw, port, { addresses: [address] });
    }
  }
  pgAdd(t, T.portGroup.name, { ports: [...T.portGroup.ports], acls: [...T.portGroup.acls] });
  lrAdd(t, T.router.name);
  for (const link of T.router.links) {
    connectSwitchToRouter(t, { ...link, router: T.router.name, networks: [...link.networks] });
  }
  for (const nat of T.router.nat) lrNatAdd(t, T.router.name, nat);
  for (const route of T.router.routes) lrRouteAdd(t, T.router.name, route);
  lbAdd(t, T.lb.name, { vips: { [T.lb.vip]: [...T.lb.backends] } });
  lsLbAdd(t, T.lb.switch, T.lb.name);
  const dhcp = dhcpOptionsCreate(t, T.dhcp.cidr, T.dhcp.options);
  for (const port of T.dhcp.ports) lspSetDhcpv4Options(t, port, dhcp);
}
