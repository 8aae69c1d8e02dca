import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../config/config.ts';
import { EgressGuard } from '../net/egress-guard.ts';
import { configuredSmtpSender, parseSmtpServer } from './smtp-sender.ts';

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig({ env });
    return [];
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    return err.problems;
  }
}

describe('SMTP settings', () => {
  it('reads the server of an smtp:// or smtps:// URL, with the default ports and decoded credentials', () => {
    assert.deepEqual(parseSmtpServer('smtp://mail.example.com'), {
      host: 'mail.example.com',
      port: 587,
      secure: false,
      user: undefined,
      pass: undefined,
    });
    assert.deepEqual(parseSmtpServer('smtps://mailer:p%40ss%3Aword@mail.example.com'), {
      host: 'mail.example.com',
      port: 465,
      secure: true,
      user: 'mailer',
      pass: 'p@ss:word',
    });
    assert.equal(parseSmtpServer('smtp://[2001:db8::25]:2525').host, '2001:db8::25');
    assert.equal(parseSmtpServer('smtp://[2001:db8::25]:2525').port, 2525);
  });

  it('refuses another scheme or no host without repeating the URL (it may hold a password)', () => {
    for (const url of ['https://u:hunter2@mail.example.com', 'smtp://u:hunter2@', 'not a url hunter2']) {
      assert.throws(
        () => parseSmtpServer(url),
        (err: Error) => !err.message.includes('hunter2'),
      );
      const problems = problemsOf({ PERIMETER_SMTP_URL: url });
      assert.equal(problems.length, 1, url);
      assert.match(problems[0] ?? '', /^PERIMETER_SMTP_URL must be an smtp:\/\/ or smtps:\/\/ URL/);
      assert.ok(!(problems[0] ?? '').includes('hunter2'), problems[0]);
    }
  });

  it('reads the sender, STARTTLS requirement and time limit from the environment', () => {
    const config = loadConfig({
      env: {
        PERIMETER_SMTP_URL: 'smtp://mail.example.com:2525',
        PERIMETER_SMTP_FROM: 'Perimeter <perimeter@example.com>',
        PERIMETER_SMTP_REQUIRE_TLS: 'true',
        PERIMETER_SMTP_TIMEOUT_MS: '5000',
      },
    });
    assert.equal(config.smtpUrl, 'smtp://mail.example.com:2525');
    assert.equal(config.smtpFrom, 'Perimeter <perimeter@example.com>');
    assert.equal(config.smtpRequireTls, true);
    assert.equal(config.smtpTimeoutMs, 5000);
    assert.deepEqual(problemsOf({ PERIMETER_SMTP_FROM: 'nobody', PERIMETER_SMTP_REQUIRE_TLS: 'yes' }), [
      'PERIMETER_SMTP_FROM must be an e-mail address or "Name <address>", got "nobody"',
      'PERIMETER_SMTP_REQUIRE_TLS must be true or false, got "yes"',
    ]);
  });

  it('has no sender when no SMTP URL is configured', () => {
    const resolver = { resolveAddresses: () => Promise.resolve([]) };
    const guard = new EgressGuard([]);
    assert.equal(configuredSmtpSender(loadConfig({ env: {} }), guard, resolver), undefined);
    const config = loadConfig({ env: { PERIMETER_SMTP_URL: 'smtp://mail.example.com' } });
    assert.equal(typeof configuredSmtpSender(config, guard, resolver)?.send, 'function');
  });
});
