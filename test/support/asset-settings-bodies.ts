/** The 14 asset-settings fields scripts written before port scanning existed send, at their defaults. */
export const olderSettingsBody = {
  brute_force: false,
  custom_headers: {},
  enable_active_tls_assessments: true,
  enable_certificate_assessments: true,
  enable_passive_tls_assessments: true,
  enable_tls_discovery: true,
  fingerprinting: true,
  include_discovered_ports_in_surface_monitoring: false,
  monitoring: false,
  requests_per_second: 10,
  scrape: true,
  ssl_audit: false,
  stateless_tests: true,
  subdomain_takeover_tests: true,
} as const;

/** Every asset-settings field at its default, as a new asset reads them (types wide enough to vary them). */
export const defaultSettingsBody = {
  brute_force: false as boolean,
  custom_headers: {} as Record<string, string>,
  enable_active_tls_assessments: true as boolean,
  enable_certificate_assessments: true as boolean,
  enable_passive_tls_assessments: true as boolean,
  enable_port_scanning: true as boolean,
  enable_tls_discovery: true as boolean,
  fingerprinting: true as boolean,
  include_discovered_ports_in_surface_monitoring: false as boolean,
  monitoring: false as boolean,
  port_scanning_avoid_list: [] as number[] | string,
  port_scanning_force_list: [] as number[] | string,
  port_scanning_include_recommended_ports: true as boolean,
  requests_per_second: 10 as number | string,
  scrape: true as boolean,
  ssl_audit: false as boolean,
  stateless_tests: true as boolean,
  subdomain_takeover_tests: true as boolean,
};
