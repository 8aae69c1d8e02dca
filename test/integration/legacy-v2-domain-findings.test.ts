// The older v2 findings of a domain: the findings of a domain and its subdomain assets as old
// findings, their status and team tags, the severity and time filters, pagination with either
// marker spelling, and one finding read on its own. The shared setup is in
// test/support/legacy-v2-fixture.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Asset } from '../../src/core/assets/asset.types.ts';
import { finding, scan } from '../support/findings.ts';
import { testStore, v2Error, type Harness } from '../support/harness.ts';
import {
  ClientFinding,
  ClientFindingPage,
  ClientUuid,
  decode,
  decodeArray,
  type ClientFindingT,
} from '../support/legacy-client.ts';
import { LegacyV2Fixture, second, T1, T2, T3, titles } from '../support/legacy-v2-fixture.ts';

describe(`older v2 endpoints: findings of a domain (${testStore})`, () => {
  const fx = new LegacyV2Fixture();
  const { send, get, error } = fx;
  let h: Harness;
  let key: string;
  let ipAsset: string;
  let example: Asset;
  let sub: Asset;

  before(async () => {
    await fx.open();
    ({ h, key, ipAsset, example, sub } = fx);
    // A finding on the 127.0.0.1 asset: the finding of another domain the last test reads (when
    // these tests shared a file with the reports, the release gate's scan left it there).
    const team = (await h.runtime.store.teams.findByName('legacy'))!;
    const ip = (await h.runtime.store.assets.findByName(team.id, '127.0.0.1'))!;
    await scan(h, { team, asset: ip }, [finding('on-the-ip', { host: '127.0.0.1' })], { at: new Date(T1) });
  });
  after(() => fx.close());

  describe('findings of a domain', () => {
    const base = () => `/rest/v2/domains/${example.token}`;

    it('answers the findings of the domain and its subdomain assets as old findings', async () => {
      const list = decodeArray(ClientFinding, await get(`${base()}/findings/`));
      assert.deepEqual(titles(list), ['Title of header', 'Title of xss', 'Title of rce', 'Title of git']);
      const xss = list[1]!;
      assert.equal(xss.domain_token, example.token, 'a finding on a subdomain asset names its domain');
      assert.deepEqual(xss.target, { uuid: sub.uuid, type: 'domain', address: 'app.example.com' });
      assert.deepEqual([xss.start_timestamp, xss.end_timestamp, xss.timestamp], [T2, T2, T2]);
      assert.equal(xss.found_at, 'https://app.example.com/xss?q=1');
      assert.match(xss.url, /\/vulnerabilities\/[0-9a-f-]{36}$/);
      assert.match(xss.signature, /^[0-9a-f]{40}$/);
      assert.equal(xss.scan_profile_token, 'a'.repeat(32));
      assert.deepEqual(xss.owasp, [{ year: '2021', classification: 'A03' }]);
      assert.deepEqual(xss.score, [
        {
          version: '3.0',
          score: 6.1,
          vector: 'CVSS:3.0/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N',
          severity: 'medium',
          from: 4,
          to: 6.9,
        },
        {
          version: '3.1',
          score: 6.1,
          vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N',
          severity: 'medium',
          from: 4,
          to: 6.9,
        },
      ]);
      assert.deepEqual(
        xss.details.map((d) => [d.type, d.name, d.value]),
        [
          ['cwe', 'CWE', 'CWE-79'],
          ['text', 'Evidence', 'evidence of xss'],
          ['markdown', 'Remediation', '**Encode** output'],
        ],
      );
      assert.equal(new Set(xss.details.map((d) => d.uuid)).size, 3);
      assert.deepEqual(
        xss.definition.references.map((r) => [r.link, r.name, r.source]),
        [['https://owasp.org/Top10/A03_2021-Injection/', 'OWASP A03', 'owasp']],
      );
      assert.deepEqual([xss.definition.description, xss.definition.risk], ['d', 'r']);
      assert.deepEqual(xss.tags, []);
      assert.deepEqual(list[0]!.tags, [{ type: 'status', value: 'patched' }], 'not seen by the last complete scan');
    });

    it('marks a finding fixed by hand with the patched status tag, and keeps team tags', async () => {
      const list = decodeArray(ClientFinding, await get(`${base()}/findings/`));
      const rce = list.find((f) => f.title === 'Title of rce')!;
      assert.equal(
        (
          await h.send('POST', `/rest/v2/vulnerabilities/uuid/${rce.uuid}/setfixedstatus/`, {
            key,
            headers: { 'content-type': 'application/json' },
          })
        ).statusCode,
        200,
      );
      assert.equal(
        (await send('POST', `/rest/v2/vulnerabilities/uuid/${rce.uuid}/tags/`, { name: 'release-42' })).statusCode,
        200,
      );
      const one = decode(ClientFinding, await get(`${base()}/findings/${rce.uuid}/`));
      assert.deepEqual(one.tags, [
        { type: 'status', value: 'patched' },
        { type: 'tag', value: 'release-42' },
      ]);
      assert.equal((await send('POST', `/rest/v2/vulnerabilities/uuid/${rce.uuid}/unsetfixedstatus/`)).statusCode, 200);
      assert.deepEqual(decode(ClientFinding, await get(`${base()}/findings/${rce.uuid}/`)).tags, [
        { type: 'tag', value: 'release-42' },
      ]);
    });

    it('filters by severity (high includes critical) and by from/to, inclusive Unix seconds', async () => {
      const q = async (query: string) => titles(decodeArray(ClientFinding, await get(`${base()}/findings/?${query}`)));
      assert.deepEqual(await q('severity=high'), ['Title of rce', 'Title of git']);
      assert.deepEqual(await q('severity=low,medium'), ['Title of header', 'Title of xss']);
      assert.deepEqual(await q('severity[]=information'), []);
      assert.deepEqual(await q(`from=${second(T2)}`), ['Title of xss', 'Title of rce', 'Title of git']);
      assert.deepEqual(await q(`to=${second(T2)}`), ['Title of header', 'Title of xss', 'Title of rce']);
      assert.deepEqual(await q(`from=${second(T2)}&to=${second(T2)}`), ['Title of xss', 'Title of rce']);
      assert.deepEqual(await q(`from=${second(T2) + 1}&to=${second(T3) - 1}`), []);
      assert.deepEqual(await q(`from=${second(T2)}&severity=high`), ['Title of rce', 'Title of git']);
      const uuids = decodeArray(ClientUuid, await get(`${base()}/findinguuids/?from=${second(T2)}&severity=medium`));
      assert.deepEqual(
        uuids,
        decodeArray(ClientFinding, await get(`${base()}/findings/?severity=medium`)).map((f) => f.uuid),
      );
    });

    it('validates from, to and severity with the catalogue codes', async () => {
      for (const path of ['findings/', 'findings/paginated/', 'findinguuids/']) {
        await error(
          `${base()}/${path}?from=soon`,
          400,
          v2Error(
            1085,
            'from must be a time as YYYY-MM-DDTHH:mm:ssZ, YYYY-MM-DDTHH:mm:ss±hhmm or Unix seconds, got "soon"',
            ['from'],
          ),
        );
        await error(
          `${base()}/${path}?to=12ab`,
          400,
          v2Error(
            1085,
            'to must be a time as YYYY-MM-DDTHH:mm:ssZ, YYYY-MM-DDTHH:mm:ss±hhmm or Unix seconds, got "12ab"',
            ['to'],
          ),
        );
        await error(
          `${base()}/${path}?from=200&to=100`,
          400,
          v2Error(
            4150,
            'from (1970-01-01T00:03:20.000Z) is after to (1970-01-01T00:01:40.000Z): both bounds are inclusive',
            ['from', 'to'],
          ),
        );
        await error(
          `${base()}/${path}?severity=urgent`,
          400,
          v2Error(4085, 'Severity malformed: "urgent" (allowed: high, medium, low, information)', ['severity']),
        );
      }
    });

    it('pages with next_marker or nextMarker, both absent on the last page', async () => {
      const all = decodeArray(ClientFinding, await get(`${base()}/findings/`));
      const seen: ClientFindingT[] = [];
      let url = `${base()}/findings/paginated/?pageSize=3`;
      let pages = 0;
      for (;;) {
        const page = decode(ClientFindingPage, await get(url));
        pages++;
        seen.push(...page.findings);
        if (page.next_marker === undefined) {
          assert.equal(page.nextMarker, undefined);
          assert.ok(!('nextMarker' in page) && !('next_marker' in page));
          break;
        }
        assert.equal(page.nextMarker, page.next_marker);
        // Clients read either spelling.
        url = `${base()}/findings/paginated/?pageSize=3&marker=${encodeURIComponent(pages % 2 === 1 ? page.nextMarker! : page.next_marker)}`;
      }
      assert.equal(pages, 2);
      assert.deepEqual(seen, all);
      const one = decode(ClientFindingPage, await get(`${base()}/findings/paginated/?severity=critical`));
      assert.deepEqual(titles(one.findings), ['Title of rce']);
      assert.equal(one.next_marker, undefined);
    });

    it('refuses a marker of another domain with 4150', async () => {
      const page = decode(ClientFindingPage, await get(`${base()}/findings/paginated/?pageSize=1`));
      await error(
        `/rest/v2/domains/${ipAsset}/findings/paginated/?marker=${encodeURIComponent(page.next_marker!)}`,
        400,
        v2Error(4150, 'marker is not a marker of this listing', ['marker']),
      );
      await error(
        `${base()}/findings/paginated/?marker=forged.marker`,
        400,
        v2Error(4150, 'marker is not a marker of this listing', ['marker']),
      );
    });

    it("reads one finding of the domain with complete details; another domain's answers 1900", async () => {
      const [first] = decodeArray(ClientFinding, await get(`${base()}/findings/`));
      const one = decode(ClientFinding, await get(`${base()}/findings/${first!.uuid}/`));
      assert.equal(one.uuid, first!.uuid);
      const other = decodeArray(ClientFinding, await get(`/rest/v2/domains/${ipAsset}/findings/`))[0]!;
      await error(
        `${base()}/findings/${other.uuid}/`,
        404,
        v2Error(1900, `Vulnerability ${other.uuid} does not exist on this domain`, ['uuid']),
      );
      await error(
        `${base()}/findings/nope/`,
        400,
        v2Error(4111, 'Vulnerability UUID malformed: expected a UUID such as 0f8fad5b-d9cb-469f-a165-70867728950e', [
          'uuid',
        ]),
      );
      const unknown = '0f8fad5b-d9cb-469f-a165-70867728950e';
      await error(
        `${base()}/findings/${unknown}/`,
        404,
        v2Error(1900, `Vulnerability ${unknown} does not exist`, ['uuid']),
      );
      // A subdomain asset's token reads its own findings only.
      assert.deepEqual(titles(decodeArray(ClientFinding, await get(`/rest/v2/domains/${sub.token}/findings/`))), [
        'Title of xss',
        'Title of rce',
      ]);
    });
  });
});
