// The part of DigitalOcean's official SDK this server uses, re-exported unchanged; its types are in
// digitalocean-sdk.d.ts (see there why this is a .js file).
export { createDigitalOceanClient, DigitalOceanApiKeyAuthenticationProvider } from '@digitalocean/dots';
