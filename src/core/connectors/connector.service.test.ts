import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isAppError } from '../errors/app-error.ts';
import { parseConnectorInput } from './connector.service.ts';

/** The error a body raises: its code, message and parameters. */
function failureOf(body: Record<string, unknown>): { code: number; message: string; parameters: string[] | undefined } {
  try {
    parseConnectorInput(body);
  } catch (err) {
    assert.ok(isAppError(err));
    return { code: err.code, message: err.message, parameters: err.parameters };
  }
  assert.fail('the body was accepted');
}

describe('parseConnectorInput', () => {
  it('trims the name and keeps the options as given', () => {
    const options = { access_key: 'AKIA', secret_key: ' s3cr3t ', region: 'eu' };
    assert.deepEqual(parseConnectorInput({ name: '  prod ', provider: 'CLOUD_A_CRED_BASED', options, ignored: true }), {
      name: 'prod',
      provider: 'CLOUD_A_CRED_BASED',
      options,
    });
  });

  it('counts characters, not UTF-16 units, against the 255 limit', () => {
    assert.equal(parseConnectorInput({ name: '😀'.repeat(255), provider: 'DNS_H', options: {} }).name.length, 510);
    assert.equal(
      failureOf({ name: '😀'.repeat(256), provider: 'DNS_H', options: {} }).message,
      'Request body malformed: name must be at most 255 characters',
    );
  });

  it('names the field at fault with 1051, as a parameter too', () => {
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
