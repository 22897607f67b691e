/**
 * The catalogue of OVN match symbols: every field, subfield, string field
 * and predicate that OVN's symbol table (`ovn_init_symtab` in OVN's
 * `lib/logical-fields.c`) defines, with the width and level of measurement
 * OVN gives it. The widths of the OpenFlow fields are Open vSwitch's
 * (`meta-flow.h`): a field is ordinal when OVS makes it fully maskable and
 * nominal otherwise.
 *
 * - `kind`: what values the field holds. `string` (logical port names),
 *   `integer`, `ipv4`, `ipv6`, `mac` (addresses), `subfield` (bits of
 *   another field, written `of`), `predicate` (a Boolean expression,
 *   written `expansion`).
 * - `width`: bits (0 for strings, 1 for predicates). A constant wider than
 *   this is rejected by OVN.
 * - `level`: `ordinal` fields take every operator and bit selections
 *   (`reg0[3..7]`); `nominal` ones only `==` (or `!=` under an odd number of
 *   `!`), no bit selection, and a nominal predicate only positively (`ip4`,
 *   never `!ip4`); `boolean` predicates take `==` and `!=` either way.
 * - `prereqs`: what OVN adds to every match that uses the symbol.
 * - `since` / `until`: the first and last OVN release (YY.MM) defining the
 *   symbol; without them, every release from 20.03 on has it.
 *
 * The table lists the symbols of OVN's development branch after 26.03 (those
 * new there are marked `since: '26.09'`, the next release), and those that
 * earlier releases had and later ones removed. OVN has ten logical
 * registers: `reg0`..`reg9` (32 bits), `xreg0`..`xreg4` (64) and
 * `xxreg0`..`xxreg1` (128); registers 10 to 15 hold the logical flags
 * (`flags`), the conntrack zones and the logical ports, and have no names of
 * their own.
 * @module
 */

/** What values a match symbol holds. */
export type MatchFieldKind =
  | 'string'
  | 'integer'
  | 'ipv4'
  | 'ipv6'
  | 'mac'
  | 'subfield'
  | 'predicate';

/** OVN's level of measurement of a symbol (see the module comment). */
export type MatchFieldLevel = 'nominal' | 'boolean' | 'ordinal';

/** One symbol of {@link MATCH_FIELDS}. */
export interface MatchFieldSpec {
  readonly kind: MatchFieldKind;
  /** Width in bits: 0 for strings, 1 for predicates. */
  readonly width: number;
  readonly level: MatchFieldLevel;
  /** The prerequisite OVN adds when the symbol is used, e.g. `tcp` for `tcp.dst`. */
  readonly prereqs?: string;
  /** For a subfield: the bits it names, e.g. `vlan.tci[0..11]`. */
  readonly of?: string;
  /** For a predicate: the expression it stands for. */
  readonly expansion?: string;
  /** The first OVN release (YY.MM) defining it, when later than 20.03. */
  readonly since?: string;
  /** The last OVN release defining it, when a later one removed it. */
  readonly until?: string;
}

// Abbreviations for the table's common shapes.
const ORD = 'ordinal';
const NOM = 'nominal';
const BOOL = 'boolean';

/**
 * OVN's match symbols by name.
 *
 * ```ts
 * MATCH_FIELDS['tcp.dst'];  // { kind: 'integer', width: 16, level: 'ordinal', prereqs: 'tcp' }
 * MATCH_FIELDS.ip4;         // { kind: 'predicate', width: 1, level: 'nominal', expansion: 'eth.type == 0x800' }
 * ```
 */
export const MATCH_FIELDS = {
  // Logical ports (string fields) and the registers behind them.
  inport: { kind: 'string', width: 0, level: NOM },
  outport: { kind: 'string', width: 0, level: NOM },
  remote_outport: { kind: 'string', width: 0, level: NOM, since: '25.09' },
  __inport: { kind: 'integer', width: 32, level: ORD, since: '26.09' },
  __outport: { kind: 'integer', width: 32, level: ORD, since: '26.09' },
  from_evpn_vtep: {
    kind: 'predicate',
    width: 1,
    level: BOOL,
    expansion: '__inport[31]',
    since: '26.09',
  },
  to_evpn_vtep: {
    kind: 'predicate',
    width: 1,
    level: BOOL,
    expansion: '__outport[31]',
    since: '26.09',
  },

  // Logical registers: xxreg0..1 (128 bits), xreg0..4 (64), reg0..9 (32).
  xxreg0: { kind: 'integer', width: 128, level: ORD },
  xxreg1: { kind: 'integer', width: 128, level: ORD },
  xreg0: { kind: 'subfield', width: 64, level: ORD, of: 'xxreg0[64..127]' },
  xreg1: { kind: 'subfield', width: 64, level: ORD, of: 'xxreg0[0..63]' },
  xreg2: { kind: 'subfield', width: 64, level: ORD, of: 'xxreg1[64..127]' },
  xreg3: { kind: 'subfield', width: 64, level: ORD, of: 'xxreg1[0..63]' },
  xreg4: { kind: 'integer', width: 64, level: ORD },
  reg0: { kind: 'subfield', width: 32, level: ORD, of: 'xxreg0[96..127]' },
  reg1: { kind: 'subfield', width: 32, level: ORD, of: 'xxreg0[64..95]' },
  reg2: { kind: 'subfield', width: 32, level: ORD, of: 'xxreg0[32..63]' },
  reg3: { kind: 'subfield', width: 32, level: ORD, of: 'xxreg0[0..31]' },
  reg4: { kind: 'subfield', width: 32, level: ORD, of: 'xxreg1[96..127]' },
  reg5: { kind: 'subfield', width: 32, level: ORD, of: 'xxreg1[64..95]' },
  reg6: { kind: 'subfield', width: 32, level: ORD, of: 'xxreg1[32..63]' },
  reg7: { kind: 'subfield', width: 32, level: ORD, of: 'xxreg1[0..31]' },
  reg8: { kind: 'subfield', width: 32, level: ORD, of: 'xreg4[32..63]' },
  reg9: { kind: 'subfield', width: 32, level: ORD, of: 'xreg4[0..31]' },

  // Logical flags (register 10).
  flags: { kind: 'integer', width: 32, level: ORD },
  'flags.loopback': { kind: 'subfield', width: 1, level: ORD, of: 'flags[0]' },
  'flags.force_snat_for_dnat': { kind: 'subfield', width: 1, level: ORD, of: 'flags[2]' },
  'flags.force_snat_for_lb': { kind: 'subfield', width: 1, level: ORD, of: 'flags[3]' },
  'flags.skip_snat_for_lb': {
    kind: 'subfield',
    width: 1,
    level: ORD,
    of: 'flags[9]',
    since: '21.06',
  },
  'flags.use_snat_zone': {
    kind: 'subfield',
    width: 1,
    level: ORD,
    of: 'flags[11]',
    since: '21.12',
  },
  'flags.localnet': { kind: 'subfield', width: 1, level: ORD, of: 'flags[15]', since: '24.03' },
  'flags.icmp_snat': { kind: 'subfield', width: 1, level: ORD, of: 'flags[17]', since: '24.03' },
  'flags.tunnel_rx': { kind: 'subfield', width: 1, level: ORD, of: 'flags[16]', since: '24.03' },
  'flags.unsnat_new': { kind: 'subfield', width: 1, level: ORD, of: 'flags[20]', since: '25.03' },
  'flags.unsnat_not_tracked': {
    kind: 'subfield',
    width: 1,
    level: ORD,
    of: 'flags[21]',
    since: '25.03',
  },
  'flags.network_id': {
    kind: 'subfield',
    width: 4,
    level: ORD,
    of: 'flags[28..31]',
    since: '25.09',
  },
  'flags.from_ctrl': { kind: 'subfield', width: 1, level: ORD, of: 'flags[19]', since: '25.03' },
  'flags.igmp_loopback': {
    kind: 'subfield',
    width: 1,
    level: ORD,
    of: 'flags[22]',
    since: '25.09',
  },
  'flags.pkt_sampled': { kind: 'subfield', width: 1, level: ORD, of: 'flags[23]', since: '26.03' },

  // Connection tracking: mark, label, state.
  ct_mark: { kind: 'integer', width: 32, level: ORD },
  'ct_mark.blocked': { kind: 'subfield', width: 1, level: ORD, of: 'ct_mark[0]', since: '22.06' },
  'ct_mark.natted': { kind: 'subfield', width: 1, level: ORD, of: 'ct_mark[1]', since: '22.06' },
  'ct_mark.ecmp_reply_port': {
    kind: 'subfield',
    width: 16,
    level: ORD,
    of: 'ct_mark[16..31]',
    since: '22.06',
  },
  'ct_mark.skip_snat': { kind: 'subfield', width: 1, level: ORD, of: 'ct_mark[2]', since: '22.12' },
  'ct_mark.force_snat': {
    kind: 'subfield',
    width: 1,
    level: ORD,
    of: 'ct_mark[3]',
    since: '22.12',
  },
  'ct_mark.obs_stage': {
    kind: 'subfield',
    width: 2,
    level: ORD,
    of: 'ct_mark[4..5]',
    since: '24.09',
  },
  'ct_mark.allow_established': {
    kind: 'subfield',
    width: 1,
    level: ORD,
    of: 'ct_mark[6]',
    since: '25.03',
  },
  'ct_mark.obs_collector_id': {
    kind: 'subfield',
    width: 8,
    level: ORD,
    of: 'ct_mark[16..23]',
    since: '24.09',
  },
  ct_label: { kind: 'integer', width: 128, level: ORD },
  'ct_label.blocked': {
    kind: 'subfield',
    width: 1,
    level: ORD,
    of: 'ct_label[0]',
    until: '24.03',
  },
  'ct_label.natted': {
    kind: 'subfield',
    width: 1,
    level: ORD,
    of: 'ct_label[1]',
    since: '20.09',
    until: '24.03',
  },
  'ct_label.ecmp_reply_eth': {
    kind: 'subfield',
    width: 48,
    level: ORD,
    of: 'ct_label[32..79]',
    since: '20.09',
  },
  'ct_label.ecmp_reply_port': {
    kind: 'subfield',
    width: 16,
    level: ORD,
    of: 'ct_label[80..95]',
    since: '20.09',
    until: '24.03',
  },
  'ct_label.label': {
    kind: 'subfield',
    width: 32,
    level: ORD,
    of: 'ct_label[96..127]',
    since: '21.09',
  },
  'ct_label.skip_snat': {
    kind: 'subfield',
    width: 1,
    level: ORD,
    of: 'ct_label[2]',
    since: '22.12',
    until: '24.03',
  },
  'ct_label.force_snat': {
    kind: 'subfield',
    width: 1,
    level: ORD,
    of: 'ct_label[3]',
    since: '22.12',
    until: '24.03',
  },
  'ct_label.obs_point_id': {
    kind: 'subfield',
    width: 32,
    level: ORD,
    of: 'ct_label[96..127]',
    since: '24.09',
  },
  'ct_label.obs_unused': {
    kind: 'subfield',
    width: 96,
    level: ORD,
    of: 'ct_label[0..95]',
    since: '24.09',
  },
  'ct_label.acl_id': {
    kind: 'subfield',
    width: 16,
    level: ORD,
    of: 'ct_label[80..95]',
    since: '25.03',
  },
  'ct_label.nf': { kind: 'subfield', width: 1, level: ORD, of: 'ct_label[7]', since: '26.03' },
  'ct_label.nf_id': {
    kind: 'subfield',
    width: 8,
    level: ORD,
    of: 'ct_label[17..24]',
    since: '26.03',
  },
  'ct_label.tun_if': { kind: 'subfield', width: 1, level: ORD, of: 'ct_label[8]', since: '26.03' },
  'ct_label.tun_if_id': {
    kind: 'subfield',
    width: 16,
    level: ORD,
    of: 'ct_label[80..95]',
    since: '26.03',
  },
  ct_state: { kind: 'integer', width: 32, level: ORD },
  'ct.new': { kind: 'subfield', width: 1, level: ORD, of: 'ct_state[0]', prereqs: 'ct.trk' },
  'ct.est': { kind: 'subfield', width: 1, level: ORD, of: 'ct_state[1]', prereqs: 'ct.trk' },
  'ct.rel': { kind: 'subfield', width: 1, level: ORD, of: 'ct_state[2]', prereqs: 'ct.trk' },
  'ct.rpl': { kind: 'subfield', width: 1, level: ORD, of: 'ct_state[3]', prereqs: 'ct.trk' },
  'ct.inv': { kind: 'subfield', width: 1, level: ORD, of: 'ct_state[4]', prereqs: 'ct.trk' },
  'ct.trk': { kind: 'subfield', width: 1, level: ORD, of: 'ct_state[5]' },
  'ct.snat': { kind: 'subfield', width: 1, level: ORD, of: 'ct_state[6]', prereqs: 'ct.trk' },
  'ct.dnat': { kind: 'subfield', width: 1, level: ORD, of: 'ct_state[7]', prereqs: 'ct.trk' },

  // Ethernet and VLAN.
  'eth.src': { kind: 'mac', width: 48, level: ORD },
  'eth.dst': { kind: 'mac', width: 48, level: ORD },
  'eth.type': { kind: 'integer', width: 16, level: NOM },
  'eth.bcast': {
    kind: 'predicate',
    width: 1,
    level: BOOL,
    expansion: 'eth.dst == ff:ff:ff:ff:ff:ff',
  },
  'eth.mcast': { kind: 'subfield', width: 1, level: ORD, of: 'eth.dst[40]' },
  'eth.mcastv6': {
    kind: 'predicate',
    width: 1,
    level: BOOL,
    expansion: 'eth.dst[32..47] == 0x3333',
  },
  'vlan.tci': { kind: 'integer', width: 16, level: ORD },
  'vlan.present': { kind: 'predicate', width: 1, level: BOOL, expansion: 'vlan.tci[12]' },
  'vlan.pcp': {
    kind: 'subfield',
    width: 3,
    level: ORD,
    of: 'vlan.tci[13..15]',
    prereqs: 'vlan.present',
  },
  'vlan.vid': {
    kind: 'subfield',
    width: 12,
    level: ORD,
    of: 'vlan.tci[0..11]',
    prereqs: 'vlan.present',
  },

  // IP (either version).
  ip4: { kind: 'predicate', width: 1, level: NOM, expansion: 'eth.type == 0x800' },
  ip6: { kind: 'predicate', width: 1, level: NOM, expansion: 'eth.type == 0x86dd' },
  ip: { kind: 'predicate', width: 1, level: NOM, expansion: 'ip4 || ip6' },
  'ip.proto': { kind: 'integer', width: 8, level: NOM, prereqs: 'ip' },
  'ip.dscp': { kind: 'integer', width: 6, level: NOM, prereqs: 'ip' },
  'ip.ecn': { kind: 'integer', width: 2, level: NOM, prereqs: 'ip' },
  'ip.ttl': { kind: 'integer', width: 8, level: NOM, prereqs: 'ip' },
  'ip.frag': { kind: 'integer', width: 2, level: ORD, prereqs: 'ip' },
  'ip.is_frag': { kind: 'predicate', width: 1, level: BOOL, expansion: 'ip.frag[0]' },
  'ip.later_frag': { kind: 'predicate', width: 1, level: BOOL, expansion: 'ip.frag[1]' },
  'ip.first_frag': {
    kind: 'predicate',
    width: 1,
    level: BOOL,
    expansion: 'ip.is_frag && !ip.later_frag',
  },

  // IPv4 and ICMPv4.
  'ip4.src': { kind: 'ipv4', width: 32, level: ORD, prereqs: 'ip4' },
  'ip4.dst': { kind: 'ipv4', width: 32, level: ORD, prereqs: 'ip4' },
  'ip4.src_mcast': {
    kind: 'predicate',
    width: 1,
    level: BOOL,
    expansion: 'ip4.src[28..31] == 0xe',
  },
  'ip4.mcast': {
    kind: 'predicate',
    width: 1,
    level: BOOL,
    expansion: 'eth.mcast && ip4.dst[28..31] == 0xe',
  },
  icmp4: { kind: 'predicate', width: 1, level: NOM, expansion: 'ip4 && ip.proto == 1' },
  'icmp4.type': { kind: 'integer', width: 8, level: NOM, prereqs: 'icmp4' },
  'icmp4.code': { kind: 'integer', width: 8, level: NOM, prereqs: 'icmp4' },
  // OVN's own fields (rewritten by OVN actions, not by OpenFlow): nominal.
  'icmp4.frag_mtu': { kind: 'integer', width: 16, level: NOM },
  'icmp4.inner_ip4.src': { kind: 'ipv4', width: 32, level: NOM, since: '26.09' },
  igmp: { kind: 'predicate', width: 1, level: NOM, expansion: 'ip4.mcast && ip.proto == 2' },

  // IPv6 and ICMPv6.
  'ip6.src': { kind: 'ipv6', width: 128, level: ORD, prereqs: 'ip6' },
  'ip6.dst': { kind: 'ipv6', width: 128, level: ORD, prereqs: 'ip6' },
  'ip6.label': { kind: 'integer', width: 20, level: ORD, prereqs: 'ip6' },
  'ip6.mcast_rsvd': {
    kind: 'predicate',
    width: 1,
    level: BOOL,
    expansion:
      'ip6.dst == { ff00::0, ff01::0, ff02::0, ff03::0, ff04::0, ff05::0, ff06::0, ff07::0, ' +
      'ff08::0, ff09::0, ff0a::0, ff0b::0, ff0c::0, ff0d::0, ff0e::0, ff0f::0 }',
  },
  'ip6.mcast_all_nodes': {
    kind: 'predicate',
    width: 1,
    level: BOOL,
    expansion: 'ip6.dst == ff01::1 || ip6.dst == ff02::1',
  },
  'ip6.mcast_all_rtrs': {
    kind: 'predicate',
    width: 1,
    level: BOOL,
    expansion: 'ip6.dst == ff01::2 || ip6.dst == ff02::2 || ip6.dst == ff05::2',
  },
  'ip6.mcast_sol_node': {
    kind: 'predicate',
    width: 1,
    level: BOOL,
    expansion: 'ip6.dst == ff02::1:ff00:0000/104',
  },
  'ip6.mcast_flood': {
    kind: 'predicate',
    width: 1,
    level: BOOL,
    expansion:
      'eth.mcastv6 && (ip6.mcast_rsvd || ip6.mcast_all_nodes || ip6.mcast_all_rtrs || ip6.mcast_sol_node)',
  },
  'ip6.mcast': {
    kind: 'predicate',
    width: 1,
    level: BOOL,
    expansion: 'eth.mcastv6 && ip6.dst[120..127] == 0xff',
  },
  icmp6: { kind: 'predicate', width: 1, level: NOM, expansion: 'ip6 && ip.proto == 58' },
  'icmp6.type': { kind: 'integer', width: 8, level: NOM, prereqs: 'icmp6' },
  'icmp6.code': { kind: 'integer', width: 8, level: NOM, prereqs: 'icmp6' },
  'icmp6.frag_mtu': { kind: 'integer', width: 32, level: NOM, since: '20.09' },
  icmp: { kind: 'predicate', width: 1, level: NOM, expansion: 'icmp4 || icmp6' },

  // ARP and RARP.
  arp: { kind: 'predicate', width: 1, level: NOM, expansion: 'eth.type == 0x806' },
  'arp.op': { kind: 'integer', width: 16, level: NOM, prereqs: 'arp' },
  'arp.spa': { kind: 'ipv4', width: 32, level: ORD, prereqs: 'arp' },
  'arp.sha': { kind: 'mac', width: 48, level: ORD, prereqs: 'arp' },
  'arp.tpa': { kind: 'ipv4', width: 32, level: ORD, prereqs: 'arp' },
  'arp.tha': { kind: 'mac', width: 48, level: ORD, prereqs: 'arp' },
  rarp: {
    kind: 'predicate',
    width: 1,
    level: NOM,
    expansion: 'eth.type == 0x8035',
    since: '22.12',
  },
  'rarp.op': { kind: 'integer', width: 16, level: NOM, prereqs: 'rarp', since: '22.12' },
  'rarp.spa': { kind: 'ipv4', width: 32, level: ORD, prereqs: 'rarp', since: '22.12' },
  'rarp.sha': { kind: 'mac', width: 48, level: ORD, prereqs: 'rarp', since: '22.12' },
  'rarp.tpa': { kind: 'ipv4', width: 32, level: ORD, prereqs: 'rarp', since: '22.12' },
  'rarp.tha': { kind: 'mac', width: 48, level: ORD, prereqs: 'rarp', since: '22.12' },

  // Neighbour discovery and MLD.
  nd: {
    kind: 'predicate',
    width: 1,
    level: NOM,
    expansion: 'icmp6.type == {135, 136} && icmp6.code == 0 && ip.ttl == 255',
  },
  nd_ns: {
    kind: 'predicate',
    width: 1,
    level: NOM,
    expansion: 'icmp6.type == 135 && icmp6.code == 0 && ip.ttl == 255',
  },
  nd_ns_mcast: {
    kind: 'predicate',
    width: 1,
    level: NOM,
    expansion: 'ip6.mcast && icmp6.type == 135 && icmp6.code == 0 && ip.ttl == 255',
    since: '24.09',
  },
  nd_na: {
    kind: 'predicate',
    width: 1,
    level: NOM,
    expansion: 'icmp6.type == 136 && icmp6.code == 0 && ip.ttl == 255',
  },
  nd_rs: {
    kind: 'predicate',
    width: 1,
    level: NOM,
    expansion: 'icmp6.type == 133 && icmp6.code == 0 && ip.ttl == 255',
  },
  nd_ra: {
    kind: 'predicate',
    width: 1,
    level: NOM,
    expansion: 'icmp6.type == 134 && icmp6.code == 0 && ip.ttl == 255',
  },
  'nd.target': { kind: 'ipv6', width: 128, level: ORD, prereqs: 'nd' },
  'nd.sll': { kind: 'mac', width: 48, level: ORD, prereqs: 'nd_ns' },
  'nd.tll': { kind: 'mac', width: 48, level: ORD, prereqs: 'nd_na' },
  mldv1: {
    kind: 'predicate',
    width: 1,
    level: NOM,
    expansion: 'eth.mcastv6 && ip6.src == fe80::/10 && icmp6.type == {130, 131, 132}',
  },
  mldv2: {
    kind: 'predicate',
    width: 1,
    level: NOM,
    expansion: 'eth.mcastv6 && ip6.dst == ff02::16 && icmp6.type == 143',
  },

  // Transport.
  tcp: { kind: 'predicate', width: 1, level: NOM, expansion: 'ip.proto == 6' },
  'tcp.src': { kind: 'integer', width: 16, level: ORD, prereqs: 'tcp' },
  'tcp.dst': { kind: 'integer', width: 16, level: ORD, prereqs: 'tcp' },
  'tcp.flags': { kind: 'integer', width: 12, level: ORD, prereqs: 'tcp' },
  udp: { kind: 'predicate', width: 1, level: NOM, expansion: 'ip.proto == 17' },
  'udp.src': { kind: 'integer', width: 16, level: ORD, prereqs: 'udp' },
  'udp.dst': { kind: 'integer', width: 16, level: ORD, prereqs: 'udp' },
  sctp: { kind: 'predicate', width: 1, level: NOM, expansion: 'ip.proto == 132' },
  'sctp.src': { kind: 'integer', width: 16, level: ORD, prereqs: 'sctp' },
  'sctp.dst': { kind: 'integer', width: 16, level: ORD, prereqs: 'sctp' },

  // Packet metadata.
  'pkt.mark': { kind: 'integer', width: 32, level: ORD, since: '20.09' },
} as const satisfies Readonly<Record<string, MatchFieldSpec>>;

/** The name of a symbol of {@link MATCH_FIELDS}. */
export type MatchFieldName = keyof typeof MATCH_FIELDS;

const FIELDS: Readonly<Record<string, MatchFieldSpec>> = MATCH_FIELDS;

/** `'23.03'` (or `'23.03.1'`) as a number comparable across releases, or undefined. */
function releaseNumber(release: string): number | undefined {
  const m = /^(\d{2})\.(\d{2})(?:\.\d+)?$/.exec(release);
  return m === null ? undefined : Number(m[1]) * 100 + Number(m[2]);
}

/** Whether `release` (`YY.MM`) is well formed. */
export function isOvnRelease(release: unknown): release is string {
  return typeof release === 'string' && releaseNumber(release) !== undefined;
}

/** Whether `spec` is defined in OVN release `release` (`YY.MM`; any release when undefined). */
export function fieldInRelease(spec: MatchFieldSpec, release: string | undefined): boolean {
  if (release === undefined) return true;
  const r = releaseNumber(release);
  if (r === undefined) return false;
  if (spec.since !== undefined && r < releaseNumber(spec.since)!) return false;
  if (spec.until !== undefined && r > releaseNumber(spec.until)!) return false;
  return true;
}

/**
 * The catalogue entry of symbol `name` (no bit selection), or undefined.
 *
 * ```ts
 * matchField('ip.dscp');   // { kind: 'integer', width: 6, level: 'nominal', prereqs: 'ip' }
 * matchField('tcp.dport'); // undefined
 * ```
 */
export function matchField(name: string): MatchFieldSpec | undefined {
  return Object.hasOwn(FIELDS, name) ? FIELDS[name] : undefined;
}

/** The names of every symbol of the catalogue. */
export function matchFieldNames(): MatchFieldName[] {
  return Object.keys(MATCH_FIELDS) as MatchFieldName[];
}
