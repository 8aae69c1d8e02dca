import { EgressDeniedError } from '../net/egress-guard.ts';

/**
 * The errors of the e-mail channel, as a person reads them in a webhook's delivery log: what
 * failed (reaching the server, securing the connection, the credentials, the sender, the
 * recipient, the message) and the server's reply, never the credentials.
 */

/** What went wrong, for the caller's retry decision and the delivery log. */
export type SmtpFailure =
  'denied' | 'unreachable' | 'tls' | 'credentials' | 'sender' | 'recipient' | 'message' | 'cancelled' | 'protocol';

/** A failed send: `failure` says what failed; `permanent` is true when the server answered 5xx (a retry would fail alike). */
export class SmtpSendError extends Error {
  override readonly name = 'SmtpSendError';

  constructor(
    message: string,
    readonly failure: SmtpFailure,
    readonly permanent: boolean,
    readonly responseCode: number | undefined,
  ) {
    super(message);
  }
}

/** The server a send talked to, as errors name it, and the secrets no message may carry. */
export interface SmtpErrorContext {
  host: string;
  port: number;
  user: string | undefined;
  pass: string | undefined;
  from: string;
  /** The time limit of the sender, which a time-out names. */
  timeoutMs: number;
}

interface NodemailerError {
  message: string;
  code?: string;
  response?: string;
  responseCode?: number;
  command?: string;
  rejected?: unknown[];
}

const unreachableCodes = new Set([
  'ETIMEDOUT',
  'ECONNECTION',
  'ESOCKET',
  'EDNS',
  'ENOTFOUND',
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** What Node's TLS layer says when a handshake or a certificate check fails (nodemailer reports it as ESOCKET). */
const tlsFailure = /certificate|altnames|\bTLS\b|\bSSL\b|handshake|wrong version number/i;

/** Removes the password (as written, URL-encoded and in AUTH PLAIN's base64) from a text. */
function scrub(text: string, context: SmtpErrorContext): string {
  const pass = context.pass;
  if (pass === undefined || pass === '') return text;
  const forms = [pass, encodeURIComponent(pass), Buffer.from(`\0${context.user ?? ''}\0${pass}`).toString('base64')];
  let out = text;
  for (const form of forms) out = out.split(form).join('***');
  return out;
}

function describe(err: NodemailerError): string {
  const reply = err.response?.trim();
  return reply !== undefined && reply !== '' ? reply : err.message;
}

function classify(err: NodemailerError, context: SmtpErrorContext): [SmtpFailure, string] {
  const server = `${context.host}:${context.port}`;
  const detail = describe(err);
  const code = err.code ?? '';
  const command = err.command ?? '';
  if (code === 'ABORT_ERR') return ['cancelled', `the send to the SMTP server ${server} was cancelled`];
  if (code === 'ETLS' || command === 'STARTTLS' || (code === 'ESOCKET' && tlsFailure.test(err.message)))
    return ['tls', `could not secure the connection to the SMTP server ${server} (TLS): ${detail}`];
  if (code === 'EAUTH')
    return [
      'credentials',
      `SMTP server ${server} refused the credentials of user ${context.user ?? '(none)'}: ${detail}`,
    ];
  if (command === 'RCPT TO' || (code === 'EENVELOPE' && Array.isArray(err.rejected))) {
    const who = (err.rejected ?? []).map(String).join(', ');
    return ['recipient', `SMTP server ${server} refused the recipient ${who === '' ? '(unknown)' : who}: ${detail}`];
  }
  if (command === 'MAIL FROM') return ['sender', `SMTP server ${server} refused the sender ${context.from}: ${detail}`];
  if (code === 'EMESSAGE' || command === 'DATA')
    return ['message', `SMTP server ${server} refused the message: ${detail}`];
  if (code === 'ETIMEDOUT' && err.responseCode === undefined)
    return [
      'unreachable',
      `could not reach the SMTP server ${server}: no answer within ${context.timeoutMs} ms (${detail})`,
    ];
  if (unreachableCodes.has(code) && err.responseCode === undefined)
    return ['unreachable', `could not reach the SMTP server ${server}: ${detail}`];
  return ['protocol', `the SMTP server ${server} failed the send: ${detail}`];
}

/** The SmtpSendError of whatever a send threw (nodemailer's errors, the guard's, the dial's). */
export function smtpSendError(err: unknown, context: SmtpErrorContext): SmtpSendError {
  if (err instanceof SmtpSendError) return err;
  if (err instanceof EgressDeniedError) {
    return new SmtpSendError(
      `could not reach the SMTP server ${context.host}:${context.port}: refused by the egress guard (${err.reason})`,
      'denied',
      false,
      undefined,
    );
  }
  const e: NodemailerError = err instanceof Error ? (err as NodemailerError) : { message: String(err) };
  const [failure, message] = classify(e, context);
  const code = e.responseCode;
  const permanent = code !== undefined && code >= 500 && code < 600;
  return new SmtpSendError(scrub(message, context), failure, permanent, code);
}
