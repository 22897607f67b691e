/**
 * Pod IPAM: subnets (IPv4, IPv6, dual-stack), static IPs, IP pools,
 * StatefulSet ordinals, stable MACs, leases that can be rolled back, and
 * restoring the state from NB.
 * @module
 */

export * from './address.js';
export * from './address-range.js';
export * from './errors.js';
export * from './ipam.js';
export * from './mac.js';
export * from './subnet.js';
