import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

/**
 * A real SMTP server on 127.0.0.1 (the smtp-server package) for the e-mail channel's tests: it
 * records every message it accepts (envelope, the authenticated user, whether the session was
 * TLS, the message parsed by mailparser), can require a login, offer STARTTLS with a given
 * certificate or speak TLS from the first byte, and refuses the recipients a test names.
 */

/** One accepted message. */
export interface ReceivedMail {
  from: string;
  to: string[];
  /** The user the client logged in as, when it did. */
  user: string | undefined;
  /** True when the session was TLS (STARTTLS or implicit) when the message was sent. */
  secure: boolean;
  parsed: ParsedMail;
}

/** How the receiver behaves. */
export interface SmtpReceiverOptions {
  /** Require this login (PLAIN or LOGIN). */
  auth?: { user: string; pass: string };
  /** Offer STARTTLS with this key and certificate (PEM); without it STARTTLS is not offered. */
  tls?: { key: string; cert: string };
  /** Speak TLS from the first byte (smtps), with `tls`. */
  implicitTls?: boolean;
  /** Recipients refused with 550. */
  refuse?: (address: string) => boolean;
}

/** A running receiver. */
export interface SmtpReceiver {
  port: number;
  readonly messages: ReceivedMail[];
  /** TCP connections accepted. */
  readonly connections: number;
  /** Resolves with the messages once at least `count` arrived (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  stop(): Promise<void>;
}

function serverOptions(options: SmtpReceiverOptions, record: (mail: ReceivedMail) => void): SMTPServerOptions {
  const auth = options.auth;
  const disabledCommands = [
    ...(options.tls === undefined ? ['STARTTLS'] : []),
    ...(auth === undefined ? ['AUTH'] : []),
  ];
  return {
    logger: false,
    secure: options.implicitTls === true,
    ...(options.tls === undefined ? {} : { key: options.tls.key, cert: options.tls.cert }),
    disabledCommands,
    authOptional: auth === undefined,
    allowInsecureAuth: true,
    onAuth(login, _session, callback) {
      if (auth !== undefined && login.username === auth.user && login.password === auth.pass)
        callback(null, { user: login.username });
      else callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onRcptTo(address, _session, callback) {
      if (options.refuse?.(address.address) === true)
        callback(Object.assign(new Error(`No such user here: ${address.address}`), { responseCode: 550 }));
      else callback();
    },
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (parsed) => {
          record({
            from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
            to: session.envelope.rcptTo.map((r) => r.address),
            user: typeof session.user === 'string' ? session.user : undefined,
            secure: session.secure,
            parsed,
          });
          callback();
        },
        (err: unknown) => callback(err instanceof Error ? err : new Error(String(err))),
      );
    },
  };
}

/** Starts a receiver on a free port of 127.0.0.1. */
export async function startSmtpReceiver(options: SmtpReceiverOptions = {}): Promise<SmtpReceiver> {
  const messages: ReceivedMail[] = [];
  const waiters: Array<() => void> = [];
  let connections = 0;
  const server = new SMTPServer(
    serverOptions(options, (mail) => {
      messages.push(mail);
      for (const wake of waiters.splice(0)) wake();
    }),
  );
  server.on('error', () => undefined);
  server.server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    port,
    messages,
    get connections() {
      return connections;
    },
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (messages.length < count) {
        const left = deadline - Date.now();
        if (left <= 0)
          throw new Error(`the SMTP receiver got ${messages.length} of ${count} messages in ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return messages.slice();
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
