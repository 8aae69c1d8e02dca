import type { Connector } from '../../core/connectors/connector.types.ts';
import { toWireTime } from '../../core/shared/time.ts';

/** The v3 wire shape of a connector: the spec's fields only, never its options. */
export function presentConnector(connector: Connector): Record<string, unknown> {
  return {
    id: connector.publicId,
    name: connector.name,
    team_id: connector.teamToken,
    provider: connector.provider,
    created_at: toWireTime(connector.created),
    updated_at: toWireTime(connector.updated),
    last_run:
      connector.lastRun === null
        ? null
        : {
            status: connector.lastRun.status,
            error: connector.lastRun.error,
            completed_at: toWireTime(connector.lastRun.completedAt),
          },
  };
}
