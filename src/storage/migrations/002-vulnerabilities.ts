import type { Kysely } from 'kysely';
import type { Dialect } from '../database.ts';
import { idColumn } from './columns.ts';

/**
 * Vulnerabilities, tags and status events. Each row keeps its list-form JSON (`document`) so a
 * page is assembled from stored strings; the indexes lead with team_id and end with id, so every
 * filter the list drives by is a keyset range in id order.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .alterTable('teams')
    .addColumn('vuln_version', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();

  await idColumn(db.schema.createTable('vulnerabilities'), dialect)
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('uuid', 'text', (c) => c.notNull().unique())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('asset_id', 'integer', (c) => c.notNull().references('assets.id').onDelete('cascade'))
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('severity_v3', 'text')
    .addColumn('scan_source', 'text', (c) => c.notNull())
    .addColumn('scan_profile_token', 'text')
    .addColumn('detection_state', 'text', (c) => c.notNull())
    .addColumn('mark', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('modified_at', 'bigint', (c) => c.notNull())
    .addColumn('tags_json', 'text', (c) => c.notNull())
    .addColumn('document', 'text', (c) => c.notNull())
    .addColumn('details_full', 'text')
    .addColumn('last_scan_id', 'text', (c) => c.notNull())
    .addColumn('revision', 'integer', (c) => c.notNull())
    .addUniqueConstraint('vulnerabilities_team_fingerprint_unique', ['team_id', 'fingerprint'])
    .execute();
  const indexes: Array<[string, string[]]> = [
    ['vulns_team_id_idx', ['team_id', 'id']],
    ['vulns_team_severity_status_idx', ['team_id', 'severity', 'status', 'id']],
    ['vulns_team_status_idx', ['team_id', 'status', 'id']],
    ['vulns_team_asset_idx', ['team_id', 'asset_id', 'id']],
    ['vulns_team_profile_idx', ['team_id', 'scan_profile_token', 'id']],
    ['vulns_team_host_idx', ['team_id', 'host', 'id']],
    ['vulns_team_created_idx', ['team_id', 'created_at']],
    ['vulns_team_updated_idx', ['team_id', 'updated_at']],
    ['vulns_team_modified_idx', ['team_id', 'modified_at']],
  ];
  for (const [name, columns] of indexes)
    await db.schema.createIndex(name).on('vulnerabilities').columns(columns).execute();

  await idColumn(db.schema.createTable('tags'), dialect)
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('uuid', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addUniqueConstraint('tags_team_name_unique', ['team_id', 'name'])
    .execute();

  await db.schema
    .createTable('vulnerability_tags')
    .addColumn('vulnerability_id', 'bigint', (c) => c.notNull().references('vulnerabilities.id').onDelete('cascade'))
    .addColumn('tag_id', 'bigint', (c) => c.notNull().references('tags.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('vulnerability_tags_pk', ['vulnerability_id', 'tag_id'])
    .execute();
  await db.schema
    .createIndex('vulnerability_tags_tag_idx')
    .on('vulnerability_tags')
    .columns(['tag_id', 'vulnerability_id'])
    .execute();

  await idColumn(db.schema.createTable('vulnerability_events'), dialect)
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('vulnerability_id', 'bigint', (c) => c.notNull().references('vulnerabilities.id').onDelete('cascade'))
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('from_status', 'text', (c) => c.notNull())
    .addColumn('to_status', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('vulnerability_events_vuln_idx')
    .on('vulnerability_events')
    .columns(['vulnerability_id', 'id'])
    .execute();
}
