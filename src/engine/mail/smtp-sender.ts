import type net from 'node:net';
import nodemailer from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type { Config } from '../../config/config.ts';
import type { EmailMessage, EmailSender } from '../../core/webhooks/webhook-format.types.ts';
import type { AddressResolver, EgressGuard } from '../net/egress-guard.ts';
import { dialGuarded } from './smtp-dial.ts';
import { smtpSendError, SmtpSendError, type SmtpErrorContext } from './smtp-errors.ts';

/**
 * The e-mail channel over SMTP (nodemailer): one connection per message to the operator's server
 * (PERIMETER_SMTP_URL), dialled through the egress guard; STARTTLS whenever the server offers
 * it (required with requireTls), TLS from the first byte with smtps://; certificates checked
 * against the server's name (a private CA: NODE_EXTRA_CA_CERTS); time limits on the connection,
 * the greeting and every reply; the caller's abort signal ends the send. Errors say what failed
 * (SmtpSendError) and never carry the credentials; nothing is logged.
 */

/** What the SMTP sender is configured with. */
export interface SmtpSenderOptions {
  /** smtp://[user:password@]host[:port] (port 587 by default) or smtps://… (port 465). */
  url: string;
  /** The From header and envelope sender. */
  from: string;
  /** Refuse to send unless the connection is TLS (STARTTLS required on smtp://). */
  requireTls: boolean;
  /** Time limit of the connection, the greeting and each reply, in milliseconds. */
  timeoutMs: number;
  guard: EgressGuard;
  resolver: AddressResolver;
  /** Certificates (PEM) to trust besides the system's: tests' self-signed servers. */
  ca?: string;
}

/** The server of an SMTP URL. */
export interface SmtpServer {
  host: string;
  port: number;
  /** TLS from the first byte (smtps://). */
  secure: boolean;
  user: string | undefined;
  pass: string | undefined;
}

/** Reads an smtp:// or smtps:// URL (user and password URL-decoded); throws without repeating it. */
export function parseSmtpServer(url: string): SmtpServer {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error('the SMTP URL is not a URL (smtp://user:password@host:587)');
  }
  const secure = parsed.protocol === 'smtps:';
  if ((!secure && parsed.protocol !== 'smtp:') || parsed.hostname === '')
    throw new Error('the SMTP URL must be smtp:// or smtps:// with a host');
  const host = parsed.hostname.startsWith('[') ? parsed.hostname.slice(1, -1) : parsed.hostname;
  return {
    host,
    port: parsed.port === '' ? (secure ? 465 : 587) : Number(parsed.port),
    secure,
    user: parsed.username === '' ? undefined : decodeURIComponent(parsed.username),
    pass: parsed.password === '' ? undefined : decodeURIComponent(parsed.password),
  };
}

function transportOptions(
  server: SmtpServer,
  options: SmtpSenderOptions,
  signal: AbortSignal,
  opened: Set<net.Socket>,
): SMTPTransport.Options {
  const t = options.timeoutMs;
  return {
    host: server.host,
    port: server.port,
    secure: server.secure,
    ...(server.user === undefined ? {} : { auth: { user: server.user, pass: server.pass ?? '' } }),
    requireTLS: options.requireTls,
    connectionTimeout: t,
    greetingTimeout: t,
    socketTimeout: t,
    dnsTimeout: t,
    logger: false,
    debug: false,
    disableFileAccess: true,
    disableUrlAccess: true,
    tls: { minVersion: 'TLSv1.2', ...(options.ca === undefined ? {} : { ca: options.ca }) },
    getSocket: (_opts, callback) => {
      dialGuarded(server.host, server.port, options, signal).then(
        (socket) => {
          opened.add(socket);
          callback(null, { connection: socket });
        },
        (err: unknown) => callback(err instanceof Error ? err : new Error(String(err)), undefined),
      );
    },
  };
}

/** A promise rejected when the signal aborts (never settled otherwise), and its release. */
function abortion(signal: AbortSignal, context: SmtpErrorContext): { promise: Promise<never>; release: () => void } {
  let onAbort = (): void => undefined;
  const promise = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(smtpSendError(Object.assign(new Error('cancelled'), { code: 'ABORT_ERR' }), context));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return { promise, release: () => signal.removeEventListener('abort', onAbort) };
}

/** The server's final reply, with the recipients it refused when it took the message for others. */
function finalReply(info: SMTPTransport.SentMessageInfo): string {
  const rejected = info.rejected.map((r) => (typeof r === 'string' ? r : r.address));
  return rejected.length === 0 ? info.response : `${info.response} (refused: ${rejected.join(', ')})`;
}

/** The EmailSender of the configured SMTP server (throws at once on an invalid URL). */
export function createSmtpSender(options: SmtpSenderOptions): EmailSender {
  const server = parseSmtpServer(options.url);
  const context: SmtpErrorContext = {
    host: server.host,
    port: server.port,
    user: server.user,
    pass: server.pass,
    from: options.from,
    timeoutMs: options.timeoutMs,
  };
  return {
    async send(message: EmailMessage, signal: AbortSignal): Promise<string> {
      if (message.to.length === 0)
        throw new SmtpSendError('an e-mail needs at least one recipient', 'recipient', true, undefined);
      if (signal.aborted) throw smtpSendError(Object.assign(new Error('cancelled'), { code: 'ABORT_ERR' }), context);
      const opened = new Set<net.Socket>();
      const transport = nodemailer.createTransport(transportOptions(server, options, signal, opened));
      const aborted = abortion(signal, context);
      try {
        const sending = transport.sendMail({
          from: options.from,
          to: message.to,
          subject: message.subject,
          text: message.text,
          html: message.html,
          // RFC 3834: a notification, not a person writing: no vacation replies back to the sender.
          headers: { 'Auto-Submitted': 'auto-generated' },
        });
        sending.catch(() => undefined); // settled after an abort: nobody awaits it then
        return finalReply(await Promise.race([sending, aborted.promise]));
      } catch (err) {
        for (const socket of opened) socket.destroy(); // a failed or cancelled send leaves no connection behind
        throw smtpSendError(err, context);
      } finally {
        aborted.release();
        transport.close();
      }
    },
  };
}

/** The sender of the configuration's SMTP settings (PERIMETER_SMTP_*), or undefined when no SMTP URL is set. */
export function configuredSmtpSender(
  config: Pick<Config, 'smtpUrl' | 'smtpFrom' | 'smtpRequireTls' | 'smtpTimeoutMs'>,
  guard: EgressGuard,
  resolver: AddressResolver,
): EmailSender | undefined {
  if (config.smtpUrl === undefined) return undefined;
  return createSmtpSender({
    url: config.smtpUrl,
    from: config.smtpFrom,
    requireTls: config.smtpRequireTls,
    timeoutMs: config.smtpTimeoutMs,
    guard,
    resolver,
  });
}
