/**
 * What each DSL operation needs of the Northbound model: the tables it
 * reads or writes and, in each, the columns. The DSL works over any NB model
 * (the bundled 7.18.0 `NB`, or one generated from the schema of the OVN in
 * use): an operation's type parameter `DB` must have its tables and
 * columns ({@link NeedsOf}), so that calling it with a model that lacks one
 * is a compile error.
 *
 * ```ts
 * import { NB as NB70, type NBTables as NB70Tables } from './models/nb-7.0.0/index.js'; // ovnkit-codegen output
 * const nb = createNb(connectDatabase({ remotes, model: NB70 })); // Nb<NB70Tables>
 * await nb.transact((t) => lspAdd(t, lsAdd(t, 'sw0'), 'p1')); // lsAdd<NB70Tables>: it has Logical_Switch.name, …
 * ```
 *
 * The same tables must be monitored by the database client (a read of an
 * unmonitored table fails with `TableNotMonitoredError`), and exist on the
 * server (otherwise `SchemaDriftError`). Some are read only when the
 * arguments or the data call for them (the `HA_Chassis_Group` of
 * `lspAdd`'s `haChassisGroup`, the `BFD` rows of the routes `lrRouteDel`
 * removes); `lspDel` reads `Port_Group`, and `mirrorDel`
 * `Logical_Switch_Port`, only when it is monitored.
 *
 * Columns a model may or may not have (`ACL.tier` from NB 7.1.0,
 * `NAT.gateway_port` from 6.3.0) are not needed: the options that write them
 * are typed so that nothing can be given for a model without them, the
 * compiler's message naming the table, the column and the model's schema
 * ({@link IfColumn}).
 * @module
 */

import type { ModelSchemaName, NotInModel, TableMap } from '../ovsdb/schema/model.js';

/** Tables and, in each, columns. */
export type NeedSpec = { readonly [table: string]: readonly string[] };

/** The table maps that have every table and column of `R` (of any type). */
export type NbTablesWith<R extends NeedSpec> = TableMap & {
  readonly [T in keyof R]: { readonly row: { readonly [C in R[T][number]]: unknown } };
};

/**
 * `V` when table `T` of `DB` has column `C`; otherwise a type nothing can be
 * assigned to, whose name in the compiler's message says which column the
 * model lacks: `Type 'number' is not assignable to type
 * 'NotInModel<"ACL", "tier", "OVN_Northbound 7.0.0">'` (an option the model
 * cannot take).
 */
export type IfColumn<DB, T extends string, C extends string, V> = DB extends {
  readonly [K in T]: { readonly row: { readonly [K2 in C]: unknown } };
}
  ? V
  : NotInModel<T, C, ModelSchemaName<DB>>;

/** The values of column `C` of table `T` in `DB` (e.g. an enum's members), or `never`. */
export type ColumnValue<DB, T extends string, C extends string> = DB extends {
  readonly [K in T]: { readonly row: { readonly [K2 in C]: infer V } };
}
  ? V
  : never;

/** The row of table `T` of a table map that has it. */
export type RowIn<
  DB extends { readonly [K in T]: { readonly row: unknown } },
  T extends string,
> = DB[T]['row'];

const LS = ['name'] as const;
const LSP_SPEC = [
  'name',
  'addresses',
  'dynamic_addresses',
  'port_security',
  'type',
  'options',
  'parent_name',
  'tag_request',
  'tag',
  'enabled',
  'dhcpv4_options',
  'dhcpv6_options',
  'ha_chassis_group',
  'external_ids',
] as const;
const LSP_WRITE = {
  Logical_Switch: ['name', 'ports'],
  Logical_Switch_Port: LSP_SPEC,
  DHCP_Options: ['cidr'],
  HA_Chassis_Group: ['name'],
} as const;
const LRP_SPEC = [
  'name',
  'mac',
  'networks',
  'peer',
  'options',
  'enabled',
  'ha_chassis_group',
  'ipv6_ra_configs',
  'external_ids',
  'gateway_chassis',
] as const;
const LRP_WRITE = {
  Logical_Router: ['name', 'ports'],
  Logical_Router_Port: LRP_SPEC,
  Gateway_Chassis: ['name', 'chassis_name', 'priority'],
  HA_Chassis_Group: ['name'],
} as const;
const ACL_COLUMNS = [
  'direction',
  'priority',
  'match',
  'action',
  'severity',
  'name',
  'meter',
  'log',
  'label',
  'options',
  'external_ids',
] as const;
const ACL_OWNERS = {
  ACL: ACL_COLUMNS,
  Logical_Switch: ['name', 'acls'],
  Port_Group: ['name', 'acls'],
} as const;
const NAT_WRITE = {
  Logical_Router: ['name', 'ports', 'nat'],
  Logical_Router_Port: ['name', 'networks', 'gateway_chassis', 'ha_chassis_group'],
  NAT: [
    'type',
    'external_ip',
    'logical_ip',
    'logical_port',
    'external_mac',
    'external_port_range',
    'allowed_ext_ips',
    'exempted_ext_ips',
    'options',
    'external_ids',
  ],
  Logical_Switch_Port: ['name'],
  Address_Set: ['name'],
} as const;
const NAT_READ = {
  Logical_Router: ['name', 'nat'],
  Logical_Router_Port: ['name'],
  NAT: ['type', 'external_ip', 'logical_ip'],
} as const;
const POLICY = {
  Logical_Router: ['name', 'policies'],
  Logical_Router_Policy: ['priority', 'match', 'action', 'nexthops', 'options', 'external_ids'],
} as const;
const ROUTE = {
  Logical_Router: ['name', 'static_routes'],
  Logical_Router_Static_Route: [
    'ip_prefix',
    'nexthop',
    'output_port',
    'policy',
    'route_table',
    'options',
    'external_ids',
    'bfd',
  ],
  Logical_Router_Port: ['name'],
  BFD: ['dst_ip', 'logical_port'],
} as const;
const LB = ['name', 'vips'] as const;
const LB_ATTACH = { Load_Balancer: ['name'] } as const;
const DHCP = ['cidr', 'options', 'external_ids'] as const;
const PG_PORTS = { Port_Group: ['name', 'ports'], Logical_Switch_Port: ['name'] } as const;
const AS = ['name', 'addresses'] as const;
const HA_GROUP = {
  HA_Chassis_Group: ['name', 'ha_chassis'],
  HA_Chassis: ['chassis_name', 'priority'],
} as const;
const MIRROR = ['name', 'type', 'index', 'filter', 'sink', 'external_ids'] as const;
const COPP = { Copp: ['name', 'meters'] } as const;
const SSL_COLUMNS = [
  'private_key',
  'certificate',
  'ca_cert',
  'bootstrap_ca_cert',
  'ssl_protocols',
  'ssl_ciphers',
] as const;
const QOS = {
  Logical_Switch: ['name', 'qos_rules'],
  QoS: ['direction', 'priority', 'match', 'action', 'bandwidth', 'external_ids'],
} as const;
const METER = {
  Meter: ['name', 'unit', 'bands', 'fair', 'external_ids'],
  Meter_Band: ['action', 'rate', 'burst_size'],
} as const;
const FWD_GROUP = {
  Logical_Switch: ['name', 'ports', 'forwarding_groups'],
  Logical_Switch_Port: ['name'],
  Forwarding_Group: ['name', 'vip', 'vmac', 'liveness', 'child_port', 'external_ids'],
} as const;
const LB_GROUP = {
  Load_Balancer_Group: ['name', 'load_balancer'],
  Load_Balancer: ['name'],
} as const;
const LB_GROUP_ATTACH = { Load_Balancer_Group: ['name'] } as const;
const STATIC_MAC = {
  Logical_Router_Port: ['name'],
  Static_MAC_Binding: ['logical_port', 'ip', 'mac', 'override_dynamic_mac'],
} as const;

/**
 * Every DSL operation (the functions over `NbTxn`) and what it needs: table
 * → columns. `docs/nb-dsl.md` lists the same tables per operation.
 */
export const NB_NEEDS = {
  // switch.ts
  lsAdd: { Logical_Switch: ['name', 'other_config', 'external_ids'] },
  lsDel: { Logical_Switch: LS },
  lsGet: { Logical_Switch: LS },
  lsList: { Logical_Switch: LS },
  lsSetOtherConfig: { Logical_Switch: ['name', 'other_config'] },
  lsSetExternalIds: { Logical_Switch: ['name', 'external_ids'] },
  lsSetDnsRecords: { Logical_Switch: ['name', 'dns_records'], DNS: ['records'] },
  // switch-port.ts
  lspAdd: LSP_WRITE,
  lspDel: {
    Logical_Switch_Port: ['name'],
    Logical_Switch: ['ports'],
    Port_Group: ['ports'],
  },
  lspGet: { Logical_Switch_Port: ['name'] },
  lspList: { Logical_Switch: ['name', 'ports'], Logical_Switch_Port: ['name'] },
  lspGetSwitch: { Logical_Switch_Port: ['name'], Logical_Switch: ['ports'] },
  lspSet: LSP_WRITE,
  lspSetAddresses: LSP_WRITE,
  lspSetPortSecurity: LSP_WRITE,
  lspSetType: LSP_WRITE,
  lspSetOptions: LSP_WRITE,
  lspSetEnabled: LSP_WRITE,
  lspSetDhcpv4Options: LSP_WRITE,
  lspSetDhcpv6Options: LSP_WRITE,
  lspMove: {
    Logical_Switch_Port: ['name', 'addresses', 'dynamic_addresses'],
    Logical_Switch: ['name', 'ports'],
  },
  lspGetParent: { Logical_Switch_Port: ['name', 'parent_name'] },
  lspGetTag: { Logical_Switch_Port: ['name', 'tag'] },
  lspGetAddresses: { Logical_Switch_Port: ['name', 'addresses'] },
  lspGetPortSecurity: { Logical_Switch_Port: ['name', 'port_security'] },
  lspGetUp: { Logical_Switch_Port: ['name', 'up'] },
  lspGetEnabled: { Logical_Switch_Port: ['name', 'enabled'] },
  lspGetType: { Logical_Switch_Port: ['name', 'type'] },
  lspGetOptions: { Logical_Switch_Port: ['name', 'options'] },
  lspGetDhcpv4Options: {
    Logical_Switch_Port: ['name', 'dhcpv4_options'],
    DHCP_Options: ['cidr'],
  },
  lspGetDhcpv6Options: {
    Logical_Switch_Port: ['name', 'dhcpv6_options'],
    DHCP_Options: ['cidr'],
  },
  // router.ts
  lrAdd: { Logical_Router: ['name', 'options', 'enabled', 'external_ids'] },
  lrDel: { Logical_Router: ['name'] },
  lrGet: { Logical_Router: ['name'] },
  lrList: { Logical_Router: ['name'] },
  lrSetOptions: { Logical_Router: ['name', 'options'] },
  lrSetExternalIds: { Logical_Router: ['name', 'external_ids'] },
  // router-port.ts
  lrpAdd: LRP_WRITE,
  lrpDel: { Logical_Router_Port: ['name'], Logical_Router: ['ports'] },
  lrpGet: { Logical_Router_Port: ['name'] },
  lrpList: { Logical_Router: ['name', 'ports'], Logical_Router_Port: ['name'] },
  lrpGetRouter: { Logical_Router_Port: ['name'], Logical_Router: ['ports'] },
  lrpSet: LRP_WRITE,
  lrpSetGatewayChassis: {
    Logical_Router_Port: ['name', 'gateway_chassis'],
    Gateway_Chassis: ['name', 'chassis_name', 'priority'],
  },
  lrpDelGatewayChassis: {
    Logical_Router_Port: ['name', 'gateway_chassis'],
    Gateway_Chassis: ['chassis_name'],
  },
  lrpGetGatewayChassis: {
    Logical_Router_Port: ['name', 'gateway_chassis'],
    Gateway_Chassis: ['name', 'chassis_name', 'priority'],
  },
  lrpGetEnabled: { Logical_Router_Port: ['name', 'enabled'] },
  lrpGetRedirectType: { Logical_Router_Port: ['name', 'options'] },
  lrpSetRedirectType: { Logical_Router_Port: ['name', 'options'] },
  connectSwitchToRouter: {
    ...LRP_WRITE,
    ...LSP_WRITE,
    HA_Chassis_Group: ['name'],
  },
  // acl.ts
  aclAdd: ACL_OWNERS,
  aclDel: ACL_OWNERS,
  aclList: ACL_OWNERS,
  // nat.ts
  lrNatAdd: NAT_WRITE,
  lrNatEnsure: NAT_WRITE,
  lrNatDel: NAT_READ,
  lrNatList: NAT_READ,
  // policy.ts
  lrPolicyAdd: POLICY,
  lrPolicyDel: POLICY,
  lrPolicyList: POLICY,
  // static-route.ts
  lrRouteAdd: ROUTE,
  lrRouteEnsure: ROUTE,
  lrRouteDel: ROUTE,
  lrRouteList: ROUTE,
  // load-balancer.ts
  lbAdd: {
    Load_Balancer: ['name', 'protocol', 'vips', 'options', 'selection_fields', 'external_ids'],
  },
  lbDel: { Load_Balancer: ['name'], Load_Balancer_Group: ['load_balancer'] },
  lbGet: { Load_Balancer: ['name'] },
  lbAddVip: { Load_Balancer: LB },
  lbSetVip: { Load_Balancer: LB },
  lbDelVip: { Load_Balancer: LB },
  lbHealthCheckAdd: {
    Load_Balancer: ['name', 'vips', 'health_check'],
    Load_Balancer_Health_Check: ['vip', 'options'],
  },
  lbHealthCheckDel: {
    Load_Balancer: ['name', 'health_check'],
    Load_Balancer_Health_Check: ['vip'],
  },
  lbSetIpPortMapping: {
    Load_Balancer: ['name', 'ip_port_mappings'],
    Logical_Switch_Port: ['name'],
  },
  lsLbAdd: { ...LB_ATTACH, Logical_Switch: ['name', 'load_balancer'] },
  lsLbDel: { ...LB_ATTACH, Logical_Switch: ['name', 'load_balancer'] },
  lrLbAdd: { ...LB_ATTACH, Logical_Router: ['name', 'load_balancer'] },
  lrLbDel: { ...LB_ATTACH, Logical_Router: ['name', 'load_balancer'] },
  lbList: { Load_Balancer: ['name'] },
  lsLbList: { ...LB_ATTACH, Logical_Switch: ['name', 'load_balancer'] },
  lrLbList: { ...LB_ATTACH, Logical_Router: ['name', 'load_balancer'] },
  // dhcp.ts
  dhcpOptionsCreate: { DHCP_Options: DHCP },
  dhcpOptionsSetOptions: { DHCP_Options: ['cidr', 'options'] },
  dhcpOptionsDel: { DHCP_Options: ['cidr'] },
  dhcpOptionsList: { DHCP_Options: ['cidr'] },
  dhcpOptionsGetOptions: { DHCP_Options: ['cidr', 'options'] },
  reconcilePortDhcpOptions: {
    Logical_Switch_Port: ['name', 'dhcpv4_options', 'dhcpv6_options'],
    DHCP_Options: DHCP,
  },
  // port-group.ts
  pgAdd: {
    Port_Group: ['name', 'ports', 'acls', 'external_ids'],
    Logical_Switch_Port: ['name'],
    ACL: ACL_COLUMNS,
  },
  pgDel: { Port_Group: ['name'] },
  pgGet: { Port_Group: ['name'] },
  pgAddPorts: PG_PORTS,
  pgRemovePorts: PG_PORTS,
  pgSetPorts: PG_PORTS,
  // address-set.ts
  addressSetAdd: { Address_Set: ['name', 'addresses', 'external_ids'] },
  addressSetDel: { Address_Set: ['name'] },
  addressSetGet: { Address_Set: ['name'] },
  addressSetAddAddresses: { Address_Set: AS },
  addressSetRemoveAddresses: { Address_Set: AS },
  addressSetSetAddresses: { Address_Set: AS },
  // ha-chassis-group.ts
  haChassisGroupAdd: {
    HA_Chassis_Group: ['name', 'ha_chassis', 'external_ids'],
    HA_Chassis: ['chassis_name', 'priority'],
  },
  haChassisGroupDel: {
    HA_Chassis_Group: ['name'],
    Logical_Router_Port: ['ha_chassis_group'],
    Logical_Switch_Port: ['ha_chassis_group'],
  },
  haChassisGroupAddChassis: HA_GROUP,
  haChassisGroupSetChassisPriority: HA_GROUP,
  haChassisGroupRemoveChassis: HA_GROUP,
  haChassisGroupList: HA_GROUP,
  // mirror.ts
  mirrorAdd: { Mirror: MIRROR },
  mirrorDel: { Mirror: ['name'], Logical_Switch_Port: ['mirror_rules'] },
  mirrorGet: { Mirror: ['name'] },
  mirrorList: { Mirror: ['name'] },
  lspAttachMirror: { Logical_Switch_Port: ['name', 'mirror_rules'], Mirror: ['name'] },
  lspDetachMirror: { Logical_Switch_Port: ['name', 'mirror_rules'], Mirror: ['name'] },
  // copp.ts
  coppAdd: COPP,
  coppDel: COPP,
  coppList: COPP,
  lsCoppAdd: { Copp: ['name'], Logical_Switch: ['name', 'copp'] },
  lrCoppAdd: { Copp: ['name'], Logical_Router: ['name', 'copp'] },
  // connection-config.ts
  getConnection: { NB_Global: ['connections'], Connection: ['target'] },
  setConnection: { NB_Global: ['connections'], Connection: ['target', 'inactivity_probe'] },
  delConnection: { NB_Global: ['connections'] },
  getSsl: { NB_Global: ['ssl'], SSL: SSL_COLUMNS },
  setSsl: { NB_Global: ['ssl'], SSL: SSL_COLUMNS },
  delSsl: { NB_Global: ['ssl'] },
  // qos.ts
  qosAdd: QOS,
  qosDel: QOS,
  qosList: QOS,
  // meter.ts
  meterAdd: METER,
  meterDel: { Meter: ['name'] },
  meterList: METER,
  // fwd-group.ts
  fwdGroupAdd: FWD_GROUP,
  fwdGroupDel: {
    Logical_Switch: ['name', 'forwarding_groups'],
    Forwarding_Group: ['name'],
  },
  fwdGroupList: {
    Logical_Switch: ['name', 'forwarding_groups'],
    Forwarding_Group: ['name'],
  },
  // static-mac-binding.ts
  staticMacBindingAdd: STATIC_MAC,
  staticMacBindingDel: STATIC_MAC,
  staticMacBindingList: { Static_MAC_Binding: ['logical_port', 'ip', 'mac'] },
  // lb-group.ts
  lbGroupAdd: LB_GROUP,
  lbGroupDel: {
    Load_Balancer_Group: ['name'],
    Logical_Switch: ['load_balancer_group'],
    Logical_Router: ['load_balancer_group'],
  },
  lbGroupList: { Load_Balancer_Group: ['name'] },
  lbGroupAddLb: LB_GROUP,
  lbGroupDelLb: LB_GROUP,
  lsLbGroupAdd: { ...LB_GROUP_ATTACH, Logical_Switch: ['name', 'load_balancer_group'] },
  lsLbGroupDel: { ...LB_GROUP_ATTACH, Logical_Switch: ['name', 'load_balancer_group'] },
  lrLbGroupAdd: { ...LB_GROUP_ATTACH, Logical_Router: ['name', 'load_balancer_group'] },
  lrLbGroupDel: { ...LB_GROUP_ATTACH, Logical_Router: ['name', 'load_balancer_group'] },
} as const satisfies { readonly [operation: string]: NeedSpec };

/** A DSL operation's name. */
export type NbOperation = keyof typeof NB_NEEDS;

/** The table maps an operation works over: those with its tables and columns. */
export type NeedsOf<Op extends NbOperation> = NbTablesWith<(typeof NB_NEEDS)[Op]>;

/** What every Northbound model has that `Nb` itself uses: `NB_Global`'s sequence numbers. */
export type NbModelTables = NbTablesWith<{
  readonly NB_Global: readonly ['nb_cfg', 'sb_cfg', 'hv_cfg'];
}>;
