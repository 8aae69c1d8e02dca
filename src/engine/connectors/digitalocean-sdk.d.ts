import type {
  AdditionalDataHolder,
  AuthenticationProvider,
  RequestAdapter,
  RequestConfiguration,
  RequestInformation,
} from '@microsoft/kiota-abstractions';

/**
 * The declarations of the part of DigitalOcean's official SDK (`@digitalocean/dots` 1.19.0) that
 * the CLOUD_E adapter uses, with the SDK's own names and shapes (copied from its generated
 * sources, only the fields read here). Why not the SDK's own types: the package ships TypeScript
 * sources (3 MB of generated models) and no declaration files, so any import of it makes `tsc`
 * type-check those sources under this project's settings, where they fail (220 errors: the
 * generated code calls `getCollectionOfPrimitiveValues()` without the argument the installed
 * kiota-abstractions requires, imports types without `import type` under verbatimModuleSyntax,
 * indexes arrays under noUncheckedIndexedAccess); `skipLibCheck` covers only `.d.ts` files. So
 * digitalocean-sdk.js re-exports the SDK at run time, and `tsc`, which resolves
 * `./digitalocean-sdk.js` to this file, never opens the sources.
 */

/** `createDigitalOceanClient(requestAdapter)`: the SDK's fluent client over a Kiota request adapter. */
export declare function createDigitalOceanClient(requestAdapter: RequestAdapter): DigitalOceanClient;

/** Adds `Authorization: Bearer <token>` (and the SDK's User-Agent) to every request. */
export declare class DigitalOceanApiKeyAuthenticationProvider implements AuthenticationProvider {
  constructor(apiKey: string);
  authenticateRequest(request: RequestInformation, context?: Record<string, unknown>): Promise<void>;
}

/** The paging query of DigitalOcean's lists (written `page` and `per_page`). */
export interface PageQueryParameters {
  page?: number;
  perPage?: number;
}

/** A list request builder of the SDK (`client.v2.droplets`, …): GET, its request, and `withUrl` for paging links. */
export interface ListRequestBuilder<R> {
  get(requestConfiguration?: RequestConfiguration<PageQueryParameters>): Promise<R | undefined>;
  toGetRequestInformation(requestConfiguration?: RequestConfiguration<PageQueryParameters>): RequestInformation;
  withUrl(rawUrl: string): ListRequestBuilder<R>;
}

/** The client's `v2` paths read by the adapter. */
export interface DigitalOceanClient {
  readonly v2: {
    readonly domains: ListRequestBuilder<DomainsGetResponse> & {
      byDomain_name(domainName: string): { readonly records: ListRequestBuilder<RecordsGetResponse> };
    };
    readonly droplets: ListRequestBuilder<DropletsGetResponse>;
    readonly reserved_ips: ListRequestBuilder<Reserved_ipsGetResponse>;
    readonly load_balancers: ListRequestBuilder<Load_balancersGetResponse>;
  };
}

export interface Backward_links extends AdditionalDataHolder {
  first?: string | null;
  prev?: string | null;
}

export interface Forward_links extends AdditionalDataHolder {
  last?: string | null;
  next?: string | null;
}

export type Page_links_pagesMember1 = AdditionalDataHolder;

export interface Page_links extends AdditionalDataHolder {
  pages?: Backward_links | Forward_links | Page_links_pagesMember1 | null;
}

export interface Meta_properties extends AdditionalDataHolder {
  total?: number | null;
}

/** What every list answer carries besides its items. */
export interface Paged extends AdditionalDataHolder {
  links?: Page_links | null;
  meta?: Meta_properties | null;
}

export interface Domain extends AdditionalDataHolder {
  ipAddress?: string | null;
  name?: string | null;
  ttl?: number | null;
  zoneFile?: string | null;
}

export interface Domain_record extends AdditionalDataHolder {
  data?: string | null;
  flags?: number | null;
  id?: number | null;
  name?: string | null;
  port?: number | null;
  priority?: number | null;
  tag?: string | null;
  ttl?: number | null;
  type?: string | null;
  weight?: number | null;
}

export interface Region extends AdditionalDataHolder {
  name?: string | null;
  slug?: string | null;
}

export interface Network_v4 extends AdditionalDataHolder {
  gateway?: string | null;
  ipAddress?: string | null;
  netmask?: string | null;
  type?: string | null;
}

export interface Network_v6 extends AdditionalDataHolder {
  gateway?: string | null;
  ipAddress?: string | null;
  netmask?: number | null;
  type?: string | null;
}

export interface Droplet_networks extends AdditionalDataHolder {
  v4?: Network_v4[] | null;
  v6?: Network_v6[] | null;
}

export interface Droplet extends AdditionalDataHolder {
  id?: number | null;
  name?: string | null;
  networks?: Droplet_networks | null;
  region?: Region | null;
}

export interface Reserved_ip extends AdditionalDataHolder {
  droplet?: Droplet | null;
  ip?: string | null;
  locked?: boolean | null;
  region?: Region | null;
}

export interface Load_balancer extends AdditionalDataHolder {
  id?: string | null;
  ip?: string | null;
  ipv6?: string | null;
  name?: string | null;
}

export interface DomainsGetResponse extends Paged {
  domains?: Domain[] | null;
}

export interface RecordsGetResponse extends Paged {
  domainRecords?: Domain_record[] | null;
}

export interface DropletsGetResponse extends Paged {
  droplets?: Droplet[] | null;
}

export interface Reserved_ipsGetResponse extends Paged {
  reservedIps?: Reserved_ip[] | null;
}

export interface Load_balancersGetResponse extends Paged {
  loadBalancers?: Load_balancer[] | null;
}

/** The SDK's error model: DigitalOcean's error body (`message` is renamed, Error has its own). */
export interface ErrorEscaped extends AdditionalDataHolder {
  id?: string | null;
  messageEscaped?: string | null;
  requestId?: string | null;
  responseStatusCode?: number;
  responseHeaders?: Record<string, string[]>;
}
