import type { RecordSet } from '@azure/arm-dns';
import type { DnsRecordInput } from '../../core/zones/zone.types.ts';
import { absoluteName, ownerName, quotedString } from './record-text.ts';

/**
 * Azure DNS record sets in presentation form. ARM gives each record type as structured fields
 * (`MXRecords: [{ preference, exchange }]`) and names without a final dot where a zone file has
 * one, so each type is written out as a zone file would show it.
 */

/** The RDATA of each record of a record set, with the set's type; empty for a type not rendered. */
function rdataOf(set: RecordSet): { type: string; data: string[] } | undefined {
  if (set.aRecords !== undefined) return { type: 'A', data: set.aRecords.map((r) => r.ipv4Address ?? '') };
  if (set.aaaaRecords !== undefined) return { type: 'AAAA', data: set.aaaaRecords.map((r) => r.ipv6Address ?? '') };
  if (set.cnameRecord?.cname !== undefined) return { type: 'CNAME', data: [absoluteName(set.cnameRecord.cname)] };
  if (set.mxRecords !== undefined)
    return { type: 'MX', data: set.mxRecords.map((r) => `${r.preference ?? 0} ${absoluteName(r.exchange ?? '')}`) };
  if (set.nsRecords !== undefined) return { type: 'NS', data: set.nsRecords.map((r) => absoluteName(r.nsdname ?? '')) };
  if (set.ptrRecords !== undefined)
    return { type: 'PTR', data: set.ptrRecords.map((r) => absoluteName(r.ptrdname ?? '')) };
  if (set.txtRecords !== undefined)
    return { type: 'TXT', data: set.txtRecords.map((r) => (r.value ?? []).map(quotedString).join(' ')) };
  if (set.srvRecords !== undefined)
    return {
      type: 'SRV',
      data: set.srvRecords.map(
        (r) => `${r.priority ?? 0} ${r.weight ?? 0} ${r.port ?? 0} ${absoluteName(r.target ?? '')}`,
      ),
    };
  if (set.caaRecords !== undefined)
    return {
      type: 'CAA',
      data: set.caaRecords.map((r) => `${r.flags ?? 0} ${r.tag ?? ''} ${quotedString(r.value ?? '')}`),
    };
  if (set.soaRecord !== undefined) {
    const s = set.soaRecord;
    const fields = [s.serialNumber, s.refreshTime, s.retryTime, s.expireTime, s.minimumTtl].map((n) => n ?? 0);
    return { type: 'SOA', data: [`${absoluteName(s.host ?? '')} ${absoluteName(s.email ?? '')} ${fields.join(' ')}`] };
  }
  return undefined;
}

/** The records of one record set (owner from its fqdn); none when its type is not rendered. */
export function recordsOfSet(set: RecordSet): DnsRecordInput[] {
  const rdata = rdataOf(set);
  if (rdata === undefined || set.fqdn === undefined) return [];
  const name = ownerName(set.fqdn);
  const ttl = set.ttl ?? 0;
  return rdata.data.filter((d) => d !== '').map((data) => ({ name, ttl, type: rdata.type, data }));
}
