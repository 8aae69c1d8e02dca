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
