import { createHmac } from 'node:crypto';
import { spotsOf, type SiteModule, type SiteRequest, type SiteResponse } from './types.ts';

/**
 * The insecure deserialisation spots of the fixture site (check `insecure-deserialization`):
 * values a real application hands the client and deserializes when they come back, written
 * byte for byte as the serializers write them. Nothing here deserializes anything: the check is
 * passive. The safe twin hands out signed JSON (an HMAC the server checks before parsing) and
 * plain words instead.
 */

const html = { 'content-type': 'text/html; charset=utf-8' };
const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const page = (title: string, body: string): string =>
  `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`;

/** What node-serialize's serialize() writes for an object with a function member. */
const NODE_SERIALIZED = JSON.stringify({
  username: 'ann',
  theme: 'dark',
  greet: "_$$ND_FUNC$$_function () { return 'Hello ann'; }",
});

/** What PHP's serialize() writes for a Cart object (two members: an array of items and a total). */
const PHP_SERIALIZED = 'O:4:"Cart":2:{s:5:"items";a:1:{i:0;s:4:"book";}s:5:"total";i:12;}';

/** A Java ObjectOutputStream holding the string "home" (aced0005, TC_STRING), base64. */
const JAVA_SERIALIZED = 'rO0ABXQABGhvbWU=';

/** The safe twin's signed JSON: base64url(JSON).base64url(HMAC-SHA256). */
function signedJson(value: unknown): string {
  const payload = Buffer.from(JSON.stringify(value)).toString('base64url');
  const signature = createHmac('sha256', 'fixture-signing-key').update(payload).digest('base64url');
  return `${payload}.${signature}`;
}

const cookieAttributes = (request: SiteRequest): string =>
  `Path=/; HttpOnly; SameSite=Lax${request.scheme === 'https' ? '; Secure' : ''}`;

const routes: Record<string, (request: SiteRequest) => SiteResponse> = {
  '/deser/profile': (request) => ({
    status: 200,
    headers: {
      ...html,
      'set-cookie': `profile=${
        request.isSafe
          ? signedJson({ username: 'ann', theme: 'dark' })
          : encodeURIComponent(Buffer.from(NODE_SERIALIZED).toString('base64'))
      }; ${cookieAttributes(request)}`,
    },
    body: page('Profile', '<p>Welcome back, ann.</p>'),
  }),
  '/deser/cart': (request) => {
    const cart = request.isSafe ? signedJson({ items: ['book'], total: 12 }) : PHP_SERIALIZED;
    return {
      status: 200,
      headers: html,
      body: page(
        'Cart',
        `<form method="post" action="/deser/cart/update"><input type="hidden" name="cart" value="${escapeHtml(cart)}"><input name="qty" value="1"><input type="submit" value="Update"></form>`,
      ),
    };
  },
  '/deser/cart/update': () => ({ status: 200, headers: html, body: page('Cart', '<p>Cart updated.</p>') }),
  '/deser/start': (request) => ({
    status: 200,
    headers: html,
    body: page(
      'Start',
      `<a href="/deser/view?state=${encodeURIComponent(request.isSafe ? 'home-view' : JAVA_SERIALIZED)}">Continue</a>`,
    ),
  }),
  '/deser/view': () => ({ status: 200, headers: html, body: page('View', '<p>Home.</p>') }),
};

const spot = spotsOf('application');

/** The deserialisation routes: a node-serialize cookie, a PHP serialized hidden field, a Java serialized link value. */
export const deserializationModule: SiteModule = {
  name: 'deserialization',
  spots: [
    spot(
      'deserialization-node-cookie',
      'insecure-deserialization',
      '/?cookie=profile',
      'profile cookie: base64 of a node-serialize object with a _$$ND_FUNC$$_ function',
    ),
    spot(
      'deserialization-php-hidden-field',
      'insecure-deserialization',
      '/deser/cart/update?body=cart',
      'hidden form field cart: a PHP serialized Cart object (O:4:"Cart":2:{…})',
    ),
    spot(
      'deserialization-java-link',
      'insecure-deserialization',
      '/deser/view?state=',
      'link parameter state: a base64 Java serialization stream (rO0AB…)',
    ),
  ],
  links: ['/deser/profile', '/deser/cart', '/deser/start'],
  handle(request) {
    return routes[request.url.pathname]?.(request);
  },
};
