/**
 * The OVN Northbound database: the typed model `NB` (schema 7.18.0) with its
 * table map `NBTables`, and per table the row, insert and update types, enum
 * value lists and canonical table schema; and the Northbound DSL: operations
 * named the way OVN users talk (`lsAdd`, `lspAdd`, `pgAddPorts`, `aclAdd`,
 * `lrNatAdd`, `lrPolicyAdd`, `lrRouteAdd`, …) that compose into one
 * transaction, the match builder, `waitFor('sb' | 'hv')` and `show`.
 *
 * ```ts
 * import { connectNb, lsAdd, lspAdd } from 'ovnkit/nb';
 *
 * const nb = await connectNb({ remotes: 'unix:/var/run/ovn/ovnnb_db.sock' });
 * await nb.transact((t) => {
 *   const sw = lsAdd(t, 'sw0');
 *   lspAdd(t, sw, 'web-1', { addresses: ['00:00:00:00:00:05 10.0.0.5'] });
 * });
 * await nb.close();
 * ```
 *
 * Over a database client you created (`connectDatabase({ remotes, model: NB })`),
 * `createNb(client)` binds the DSL to it.
 * @module
 */

export * from '../desired/index.js';
export { TableNotMonitoredError } from '../transactions/view-overlay.js';
export {
  ACL_ACTIONS,
  ACL_DIRECTIONS,
  ACL_SEVERITIES,
  type AclActionName,
  type AclDirectionName,
  type AclFilter,
  type AclSeverityName,
  type AclSpec,
  type AclTarget,
  aclAdd,
  aclDel,
  aclList,
  encodeAcl,
} from './acl.js';
export {
  type AddressSetAddOptions,
  addressSetAdd,
  addressSetAddAddresses,
  addressSetDel,
  addressSetGet,
  addressSetRemoveAddresses,
  addressSetSetAddresses,
} from './address-set.js';
export {
  formatLspAddress,
  formatPortSecurity,
  type LspAddress,
  lspAddress,
  lspAddressIps,
  type PortSecurityEntry,
  parseLspAddress,
  parsePortSecurity,
} from './addresses.js';
export { NB_COMPAT, NB_COMPAT_SCHEMAS, type NBCompatTables } from './compat.js';
export { type ConnectNbOptions, connectNb } from './connect.js';
export {
  CONNECTION_METHODS,
  type ConnectionMethod,
  checkConnectionTarget,
  delConnection,
  delSsl,
  getConnection,
  getSsl,
  type SetConnectionOptions,
  type SslConfig,
  type SslSettings,
  setConnection,
  setSsl,
} from './connection-config.js';
export {
  COPP_PROTOCOLS,
  type CoppProtocol,
  type CoppRef,
  coppAdd,
  coppDel,
  coppList,
  lrCoppAdd,
  lsCoppAdd,
} from './copp.js';
export { NB_KEYS, type NbDesiredStateOptions, nbDesiredState } from './desired.js';
export {
  type DhcpOptionsCreateOptions,
  type DhcpOptionsPatch,
  type DhcpStaticRoute,
  type DhcpV4Options,
  type DhcpV6Options,
  dhcpOptionsCreate,
  dhcpOptionsDel,
  dhcpOptionsGetOptions,
  dhcpOptionsList,
  dhcpOptionsSetOptions,
  encodeDhcpOptions,
  type Ipv4List,
  type PortDhcpReconciliation,
  type PortDhcpSpec,
  reconcilePortDhcpOptions,
} from './dhcp.js';
export {
  type AddressKind,
  AlreadyExistsError,
  AmbiguousNameError,
  DuplicateNameError,
  InvalidAddressError,
  InvalidArgumentError,
  InvalidDhcpOptionError,
  InvalidMatchError,
  MatchSyntaxError,
  MissingNexthopError,
  NatLogicalIpError,
  NbError,
  type NbObjectKind,
  NbWaitTimeoutError,
  NotFoundError,
  OutOfRangeError,
  UnknownDhcpOptionError,
} from './errors.js';
export type { CreateOptions, DeleteOptions } from './existence.js';
export { type FwdGroupSpec, fwdGroupAdd, fwdGroupDel, fwdGroupList } from './fwd-group.js';
// The generated model, whole: every name in it is part of the model (codegen
// decides which), and listing them here would go stale on regeneration.
export * from './generated/index.js';
export {
  type HaChassisGroupAddOptions,
  type HaChassisGroupInfo,
  haChassisGroupAdd,
  haChassisGroupAddChassis,
  haChassisGroupDel,
  haChassisGroupList,
  haChassisGroupRemoveChassis,
  haChassisGroupSetChassisPriority,
} from './ha-chassis-group.js';
export {
  checkCidr,
  type IpFamily,
  normalizeIp,
  normalizePrefix,
  type ParsedIp,
  type ParsedPrefix,
  parseIp,
  parsePrefix,
} from './ip.js';
export { lrLbAdd, lrLbDel, lrLbList, lsLbAdd, lsLbDel, lsLbList } from './lb-attach.js';
export {
  type LbGroupAddOptions,
  type LoadBalancerGroupRef,
  lbGroupAdd,
  lbGroupAddLb,
  lbGroupDel,
  lbGroupDelLb,
  lbGroupList,
  lrLbGroupAdd,
  lrLbGroupDel,
  lsLbGroupAdd,
  lsLbGroupDel,
} from './lb-group.js';
export {
  LB_PROTOCOLS,
  type LbAddOptions,
  type LbEndpoint,
  type LbHealthCheckOptions,
  type LbProtocol,
  lbAdd,
  lbAddVip,
  lbDel,
  lbDelVip,
  lbGet,
  lbHealthCheckAdd,
  lbHealthCheckDel,
  lbList,
  lbSetIpPortMapping,
  lbSetVip,
  parseLbEndpoint,
} from './load-balancer.js';
export {
  type AddressSetRef,
  findNamed,
  getNamed,
  type HaChassisGroupRef,
  type LoadBalancerRef,
  type NamedTable,
  type PortGroupRef,
  type PortRef,
  type RouterPortRef,
  type RouterRef,
  rowsNamed,
  type SwitchRef,
} from './lookup.js';
export { checkMac, isMac, normalizeMac } from './mac.js';
export type { MapPatch, SetOptions } from './maps.js';
export {
  type ConstantInfo,
  checkMatch,
  constantInfo,
  type MatchCheckOptions,
  type ResolvedField,
  resolveField,
} from './match/check.js';
export {
  formatMatch,
  type MatchAloneArg,
  type MatchFieldArg,
  type MatchFieldRef,
  type MatchInput,
  type MatchOperatorArg,
  type MatchValueArg,
  type MatchValueCheck,
  type MatchValueInput,
  match,
  matchText,
  quoteMatchString,
} from './match/expr.js';
export {
  fieldInRelease,
  MATCH_FIELDS,
  type MatchFieldKind,
  type MatchFieldLevel,
  type MatchFieldName,
  type MatchFieldSpec,
  matchField,
  matchFieldNames,
} from './match/fields.js';
export { parseMatch } from './match/parser.js';
export type {
  MatchAddressSetRef,
  MatchConstant,
  MatchExpr,
  MatchOperator,
  MatchPortGroupRef,
  MatchStringValue,
  MatchValue,
} from './match/types.js';
export {
  METER_BAND_ACTIONS,
  METER_UINT32_MAX,
  METER_UNITS,
  type MeterBandActionName,
  type MeterBandSpec,
  type MeterSpec,
  type MeterUnitName,
  meterAdd,
  meterDel,
  meterList,
} from './meter.js';
export {
  lspAttachMirror,
  lspDetachMirror,
  MIRROR_FILTERS,
  MIRROR_TYPES,
  type MirrorFilterName,
  type MirrorSpec,
  type MirrorTypeName,
  mirrorAdd,
  mirrorDel,
  mirrorGet,
  mirrorList,
} from './mirror.js';
export {
  lrNatAdd,
  lrNatDel,
  lrNatEnsure,
  lrNatList,
  NAT_TYPES,
  type NatFilter,
  type NatSpec,
  type NatTypeName,
} from './nat.js';
export {
  createNb,
  Nb,
  type NbDryRun,
  type NbTransactOptions,
  type NbTransactResult,
} from './nb.js';
export {
  type ColumnValue,
  type IfColumn,
  NB_NEEDS,
  type NbModelTables,
  type NbOperation,
  type NbTablesWith,
  type NeedSpec,
  type NeedsOf,
  type RowIn,
} from './needs.js';
export {
  encodePolicy,
  lrPolicyAdd,
  lrPolicyDel,
  lrPolicyList,
  POLICY_ACTIONS,
  type PolicyActionName,
  type PolicyFilter,
  type PolicySpec,
} from './policy.js';
export {
  type PgAddOptions,
  pgAdd,
  pgAddPorts,
  pgDel,
  pgGet,
  pgRemovePorts,
  pgSetPorts,
} from './port-group.js';
export {
  type IfQosAction,
  QOS_DIRECTIONS,
  QOS_UINT32_MAX,
  type QosDirectionName,
  type QosFilter,
  type QosSpec,
  qosAdd,
  qosDel,
  qosList,
} from './qos.js';
export {
  type LrAddOptions,
  lrAdd,
  lrDel,
  lrGet,
  lrList,
  lrSetExternalIds,
  lrSetOptions,
} from './router.js';
export {
  type ConnectSwitchToRouter,
  connectSwitchToRouter,
  LRP_REDIRECT_TYPES,
  type LrpAddOptions,
  type LrpGatewayChassis,
  type LrpRedirectType,
  type LrpSpec,
  lrpAdd,
  lrpDel,
  lrpDelGatewayChassis,
  lrpGet,
  lrpGetEnabled,
  lrpGetGatewayChassis,
  lrpGetRedirectType,
  lrpGetRouter,
  lrpList,
  lrpSet,
  lrpSetGatewayChassis,
  lrpSetRedirectType,
  type SwitchRouterLink,
} from './router-port.js';
export { type ShowOptions, showNb } from './show.js';
export {
  type StaticMacBindingOptions,
  staticMacBindingAdd,
  staticMacBindingDel,
  staticMacBindingList,
} from './static-mac-binding.js';
export {
  lrRouteAdd,
  lrRouteDel,
  lrRouteEnsure,
  lrRouteList,
  ROUTE_POLICIES,
  type RouteFilter,
  type RoutePolicy,
  type RouteSpec,
} from './static-route.js';
export {
  encodeLsOtherConfig,
  type LsAddOptions,
  type LsOtherConfig,
  lsAdd,
  lsDel,
  lsGet,
  lsList,
  lsSetDnsRecords,
  lsSetExternalIds,
  lsSetOtherConfig,
} from './switch.js';
export {
  LSP_TYPES,
  type LspAddOptions,
  type LspOptions,
  type LspSpec,
  type LspType,
  lspAdd,
  lspDel,
  lspGet,
  lspGetSwitch,
  lspList,
  lspMove,
  lspSet,
  lspSetAddresses,
  lspSetDhcpv4Options,
  lspSetDhcpv6Options,
  lspSetEnabled,
  lspSetOptions,
  lspSetPortSecurity,
  lspSetType,
} from './switch-port.js';
export {
  type LspDhcpOptionsRef,
  lspGetAddresses,
  lspGetDhcpv4Options,
  lspGetDhcpv6Options,
  lspGetEnabled,
  lspGetOptions,
  lspGetParent,
  lspGetPortSecurity,
  lspGetTag,
  lspGetType,
  lspGetUp,
} from './switch-port-getters.js';
export {
  type NbInsert,
  type NbReader,
  type NbRow,
  type NbTable,
  NbTxn,
  type NbUpdate,
} from './txn.js';

export {
  NbGlobalRaceError,
  type NbWaitClient,
  type NbWaitOptions,
  type WaitTarget,
} from './wait.js';
