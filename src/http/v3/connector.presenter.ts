import type { Connector, ConnectorAsset } from '../../core/connectors/connector.types.ts';
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
            completed_at: connector.lastRun.completedAt === null ? null : toWireTime(connector.lastRun.completedAt),
          },
  };
}

/** The wire shape of one name or address a connector's runs brought in. */
export function presentConnectorAsset(asset: ConnectorAsset): Record<string, unknown> {
  return {
    name: asset.name,
    kind: asset.kind,
    source: asset.source,
    first_seen_at: toWireTime(asset.firstSeen),
    last_seen_at: toWireTime(asset.lastSeen),
    gone_from_provider: asset.goneAt !== null,
    gone_at: asset.goneAt === null ? null : toWireTime(asset.goneAt),
  };
}
