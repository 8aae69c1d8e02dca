import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { connectorInput, type ConnectorBody } from '../../core/connectors/connector.service.ts';
import { isAppError } from '../../core/errors/app-error.ts';
import { compileRouteValidator } from '../validation.ts';
import { connectorRoutes } from './connectors.routes.ts';

const create = connectorRoutes.find((r) => r.operationId === 'createConnector')!;
const validator = compileRouteValidator(create);

/** The input a create body yields: the route's schema checks, then the core's. */
function inputOf(body: Record<string, unknown>) {
  const valid = validator.validate({ query: {}, params: {}, rawBody: Buffer.from(JSON.stringify(body)) } as never);
  return connectorInput(valid.body as ConnectorBody);
}

/** The error a body raises: its code, message and parameters. */
function failureOf(body: Record<string, unknown>): { code: number; message: string; parameters: string[] | undefined } {
  try {
    inputOf(body);
  } catch (err) {
    assert.ok(isAppError(err));
    return { code: err.code, message: err.message, parameters: err.parameters };
  }
  assert.fail('the body was accepted');
}

describe('the create connector body', () => {
  it('trims the name and keeps the options as given', () => {
    const options = { access_key: 'AKIAIOSFODNN7EXAMPLE', secret_key: ' s3cr3t ', regions: 'eu-west-1' };
    assert.deepEqual(inputOf({ name: '  prod ', provider: 'CLOUD_A_CRED_BASED', options, ignored: true }), {
      name: 'prod',
      provider: 'CLOUD_A_CRED_BASED',
      options,
    });
  });

  it('counts characters, not UTF-16 units, against the 255 limit', () => {
    assert.equal(inputOf({ name: '😀'.repeat(255), provider: 'DNS_H', options: { api_key: 'k' } }).name.length, 510);
    assert.equal(
      failureOf({ name: '😀'.repeat(256), provider: 'DNS_H', options: {} }).message,
      'Request body malformed: name must be at most 255 characters',
    );
  });

  it('checks name, then provider, then options, each a 1051 naming the field', () => {
    assert.deepEqual(failureOf({ provider: 'nope', options: 3 }), {
      code: 1051,
      message: 'Request body malformed: name is required',
      parameters: ['name'],
    });
    assert.equal(
      failureOf({ name: ' \u0000', provider: 'nope' }).message,
      'Request body malformed: name must not contain a NUL character (U+0000)',
    );
    assert.match(
      failureOf({ name: 'x', provider: 'nope', options: 3 }).message,
      /^Request body malformed: provider must be one of /,
    );
    assert.equal(
      failureOf({ name: 'x', provider: 'DNS_H' }).message,
      'Request body malformed: options is required: a JSON object of string fields',
    );
    assert.deepEqual(failureOf({ name: 'x', provider: 'DNS_H', options: { a: 'ok', b: '  ' } }), {
      code: 1051,
      message: 'Request body malformed: options.b must not be empty',
      parameters: ['options.b'],
    });
    assert.equal(
      failureOf({
        name: 'x',
        provider: 'DNS_H',
        options: Object.fromEntries([...Array(33).keys()].map((i) => [`f${i}`, 'v'])),
      }).message,
      'Request body malformed: options must have at most 32 fields',
    );
  });

  it('names the option a provider requires with 1051, as a parameter too', () => {
    assert.deepEqual(failureOf({ name: 'x', provider: 'CLOUD_A_ROLE_BASED', options: {} }), {
      code: 1051,
      message: 'Request body malformed: options.role_arn is required for provider CLOUD_A_ROLE_BASED',
      parameters: ['options.role_arn'],
    });
  });

  it('never repeats an option value or a malformed option name', () => {
    const secret = 'very-secret-value';
    for (const options of [{ token: secret.repeat(300) }, { [secret + ' !']: 'v' }, { token: 5, other: secret }]) {
      assert.ok(!failureOf({ name: 'x', provider: 'CLOUD_B', options }).message.includes(secret));
    }
  });
});
