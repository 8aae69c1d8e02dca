import { readFileSync } from 'node:fs';

/**
 * The recommended-ports list (port_scanning_include_recommended_ports): 190 TCP ports chosen by
 * a stated rule from the IANA service-name registry and the default ports of widely deployed
 * products, one entry per port with its service, category and basis (recommended-ports.json;
 * docs/ports.md gives the rule, the source and the licence; nothing comes from nmap-services).
 */
export interface RecommendedPort {
  port: number;
  /** IANA service name (basis `iana`) or the product's usual name (basis `default`). */
  service: string;
  category: string;
  basis: 'iana' | 'default';
}

/** Where the list is read from. */
export const recommendedPortsPath = new URL('./recommended-ports.json', import.meta.url);

/** Parses and checks the list: every port an integer 1–65535, strictly ascending (so distinct). */
export function parseRecommendedPorts(text: string): RecommendedPort[] {
  const data = JSON.parse(text) as { ports?: unknown };
  if (!Array.isArray(data.ports)) throw new Error('recommended ports: no "ports" array');
  const entries = data.ports as RecommendedPort[];
  let previous = 0;
  for (const entry of entries) {
    const { port, service, basis } = entry;
    if (!Number.isInteger(port) || port < 1 || port > 65535)
      throw new Error(`recommended ports: invalid port ${JSON.stringify(port)}`);
    if (port <= previous) throw new Error(`recommended ports: ${port} is not in ascending order (after ${previous})`);
    if (typeof service !== 'string' || (basis !== 'iana' && basis !== 'default'))
      throw new Error(`recommended ports: entry ${port} lacks a service or basis`);
    previous = port;
  }
  return entries;
}

let shipped: readonly RecommendedPort[] | undefined;

/** The shipped entries, read once per process. */
export function recommendedPortEntries(): readonly RecommendedPort[] {
  shipped ??= Object.freeze(parseRecommendedPorts(readFileSync(recommendedPortsPath, 'utf8')));
  return shipped;
}

/** The shipped port numbers, ascending. */
export function recommendedPortNumbers(): readonly number[] {
  return Object.freeze(recommendedPortEntries().map((entry) => entry.port));
}
