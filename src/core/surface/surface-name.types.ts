/**
 * The names surface monitoring lists as live: a discovered name is *listed* while the latest
 * run that re-checked it resolved it (its surface record set is stored), and stops being listed
 * when a run finds it gone (NXDOMAIN or no data). The events `subdomain.discovered` and
 * `subdomain.disappeared` are written on these transitions, so a name that stays gone run after
 * run is reported once.
 */
export interface SurfaceNameRepository {
  /** The names strictly under `domain` that the team's latest surface runs resolved (listed). */
  listedUnder(teamId: number, domain: string): Promise<Set<string>>;
  /** A run found these names gone: they are no longer listed (their surface record set is cleared). */
  markGone(teamId: number, names: readonly string[]): Promise<void>;
}
