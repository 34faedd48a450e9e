import { lookup as dnsLookup } from 'node:dns';
import { isIP } from 'node:net';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Agent, buildConnector } from 'undici';
import { CrewdError } from '../domain/errors.ts';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * Cloud metadata and platform endpoints. Most already sit in refused ranges; they are listed so that a change to
 * the range rules can never let them through (168.63.129.16 is public address space).
 */
const metadataAddresses: ReadonlySet<string> = new Set(
  ['169.254.169.254', '169.254.170.2', '169.254.170.23', '100.100.100.200', '168.63.129.16', '192.0.0.192']
    .concat(['fd00:ec2::254', 'fd00:ec2::23', 'fd20:ce::254'])
    .map((text) => ipaddr.parse(text).toNormalizedString()),
);

/** Only global IPv6 unicast (2000::/3) may be a target; everything else is local, reserved or special. */
const globalUnicastV6 = ipaddr.parseCIDR('2000::/3');
const nat64WellKnown = ipaddr.parseCIDR('64:ff9b::/96');

/** Parses an address in any spelling ipaddr.js knows (dotted, decimal, hex, octal, short, bracketed IPv6). */
function parseAddress(text: string): Address | null {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (!ipaddr.isValid(bare)) return null;
  try {
    return ipaddr.parse(bare);
  } catch {
    return null;
  }
}

function ipv4From(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/**
 * The IPv4 address an IPv6 form carries where it can be read (mapped, translated, well-known NAT64, 6to4);
 * undefined for forms that carry none, null for forms whose embedding cannot be read (refused whole).
 */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | null | undefined {
  const parts = address.parts;
  const range = address.range();
  if (range === 'ipv4Mapped' || range === 'rfc6145') return ipv4From(parts[6] ?? 0, parts[7] ?? 0);
  // Only the well-known /96 prefix puts the address in the last 32 bits; the local-use /48 is refused whole.
  if (range === 'rfc6052')
    return address.match(nat64WellKnown) ? ipv4From(parts[6] ?? 0, parts[7] ?? 0) : null;
  if (range === '6to4') return ipv4From(parts[1] ?? 0, parts[2] ?? 0);
  return undefined;
}

function isForbiddenParsed(address: Address): boolean {
  if (metadataAddresses.has(address.toNormalizedString())) return true;
  if (address.kind() === 'ipv4') return address.range() !== 'unicast';
  const v6 = address as ipaddr.IPv6;
  const embedded = embeddedIPv4(v6);
  if (embedded !== undefined) return embedded === null || isForbiddenParsed(embedded);
  return v6.range() !== 'unicast' || !v6.match(globalUnicastV6);
}

/**
 * True when a webhook must not be sent to this address: loopback, private, link-local, unique-local, CGNAT,
 * unspecified, multicast, broadcast, reserved, cloud metadata, or an IPv6 form embedding such an IPv4 address.
 * Anything that does not parse as an address is refused too.
 */
export function isForbiddenAddress(ip: string): boolean {
  const address = parseAddress(ip.trim());
  return address === null || isForbiddenParsed(address);
}

/** Why an attempt to a refused target failed; the worker records its message as the attempt's error. */
export class TargetRefusedError extends CrewdError {
  constructor() {
    super('VALIDATION_ERROR', 'target address is not allowed');
    this.name = 'TargetRefusedError';
  }
}

export interface GuardedAgentOptions {
  /** Lets webhooks reach loopback and private addresses (`CREWD_WEBHOOK_ALLOW_PRIVATE=1`). */
  readonly allowPrivate: boolean;
  readonly connectTimeoutMs: number;
  /** Name resolution; `dns.lookup` unless given (tests resolve their own names). */
  readonly lookup?: LookupFunction;
}

/** Resolves every address of a name and keeps only the allowed ones, so a name cannot smuggle in a local address. */
function guardLookup(lookup: LookupFunction): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error !== null) {
        callback(error, []);
        return;
      }
      const list =
        typeof addresses === 'string' ? [{ address: addresses, family: isIP(addresses) }] : addresses;
      const allowed = list.filter((entry) => !isForbiddenAddress(entry.address));
      const first = allowed[0];
      if (first === undefined) {
        callback(new TargetRefusedError(), []);
      } else if (options.all === true) {
        callback(null, allowed);
      } else {
        callback(null, first.address, first.family);
      }
    });
  };
}

/**
 * An undici Agent whose connector refuses forbidden targets: IP literals before connecting, names through the
 * lookup it hands to the socket (the address connected to is the one checked, so DNS rebinding does not pass), and
 * the socket's remote address once connected. Node's global fetch ignores custom agents; send through this one.
 * undici is loaded here, on first use, so a server that sends no webhook does not load it at start-up.
 */
export async function createGuardedAgent(options: GuardedAgentOptions): Promise<Agent> {
  const { Agent, buildConnector } = await import('undici');
  const lookup = options.lookup ?? dnsLookup;
  if (options.allowPrivate) return new Agent({ connect: { timeout: options.connectTimeoutMs, lookup } });
  const base = buildConnector({ timeout: options.connectTimeoutMs, lookup: guardLookup(lookup) });
  const connect: buildConnector.connector = (connectOptions, callback) => {
    if (isIP(connectOptions.hostname) !== 0 && isForbiddenAddress(connectOptions.hostname)) {
      callback(new TargetRefusedError(), null);
      return;
    }
    base(connectOptions, (...result) => {
      if (result[0] !== null) {
        callback(result[0], null);
        return;
      }
      const socket = result[1];
      const remote = socket.remoteAddress;
      if (remote === undefined || isForbiddenAddress(remote)) {
        socket.destroy();
        callback(new TargetRefusedError(), null);
        return;
      }
      callback(null, socket);
    });
  };
  return new Agent({ connect });
}
