'use strict';
/**
 * A local SMTP server for tests: smtp-server's SMTPServer on 127.0.0.1 on a
 * free port, plain SMTP (no TLS: STARTTLS is not offered, so a client such as
 * nodemailer, which upgrades whenever the server offers it, stays in plain
 * text), any AUTH accepted (or none: authentication is optional). Each mail
 * received is parsed with mailparser's simpleParser and kept in `mails`:
 *
 *   { from, to, subject, text, html, attachments: [{ filename, contentType, content }],
 *     envelope: { from, to: [] }, user }
 *
 * `from` and `to` are the header addresses as text ('a@b.example, c@d.example'), `html` is
 * false when the mail has none (mailparser's value), `content` a Buffer, `envelope` the SMTP
 * MAIL FROM and RCPT TO addresses, `user` the name the client authenticated with (undefined
 * without AUTH). `failNext()` refuses a recipient, as a server refuses an unknown mailbox;
 * those are kept in `refused`.
 *
 *   const smtp = await SmtpServer.start();
 *   … send to 127.0.0.1:smtp.port …
 *   const [mail] = await smtp.until(1);
 *   await smtp.close();
 */
const { SMTPServer } = require('smtp-server');
const { simpleParser } = require('mailparser');

class SmtpServer {
  constructor() {
    /** The mails received, parsed, in the order they arrived. */
    this.mails = [];
    /** Errors reading or parsing a mail (the client was answered 451). */
    this.errors = [];
    /** Recipients refused by failNext(), in order: { from, to, code, message }. */
    this.refused = [];
    this.failures = [];
    this.port = undefined;
    this.host = '127.0.0.1';
    this.waiters = new Set();
    this.server = new SMTPServer({
      secure: false,
      disabledCommands: ['STARTTLS'],
      authOptional: true,
      allowInsecureAuth: true,
      logger: false,
      closeTimeout: 1000,
      onAuth: (auth, session, callback) => callback(null, { user: auth.username }),
      onRcptTo: (address, session, callback) => {
        const i = this.failures.findIndex((f) => f.to === undefined || f.to === address.address);
        if (i < 0) return callback();
        const [{ code, message }] = this.failures.splice(i, 1);
        this.refused.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined, to: address.address, code, message });
        const err = new Error(message);
        err.responseCode = code;
        return callback(err);
      },
      onData: (stream, session, callback) => {
        simpleParser(stream).then(
          (parsed) => {
            this.mails.push(mailOf(parsed, session));
            callback();
            this.wake();
          },
          (err) => {
            this.errors.push(err);
            stream.resume();
            const answer = new Error(`could not parse the mail: ${err.message}`);
            answer.responseCode = 451;
            callback(answer);
            this.wake();
          },
        );
      },
    });
    this.server.on('error', (err) => this.errors.push(err));
  }

  /** Starts listening on 127.0.0.1 on a free port; resolves with the server. */
  static async start() {
    const smtp = new SmtpServer();
    await new Promise((resolve, reject) => {
      smtp.server.server.once('error', reject);
      smtp.server.listen(0, '127.0.0.1', () => {
        smtp.server.server.off('error', reject);
        resolve();
      });
    });
    smtp.port = smtp.server.server.address().port;
    return smtp;
  }

  /**
   * Refuses the next recipient (the next `to`, when given) at RCPT TO with `code` and `message`,
   * as a server refuses an unknown mailbox: nodemailer then fails the mail ("all recipients were
   * rejected") unless another recipient of it was accepted. Later recipients are accepted again.
   */
  failNext({ to, code = 550, message = 'Mailbox unavailable' } = {}) {
    this.failures.push({ to, code, message });
  }

  wake() {
    for (const w of [...this.waiters]) w();
  }

  /**
   * Resolves with the mails once `n` have arrived (at once if they already have); rejects after
   * `timeoutMs` saying how many arrived (and any mail that could not be parsed).
   */
  until(n, timeoutMs = 10000) {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (this.mails.length < n) return;
        cleanup();
        resolve(this.mails.slice());
      };
      const timer = setTimeout(() => {
        cleanup();
        const errors = this.errors.length ? `; errors: ${this.errors.map((e) => e.message).join('; ')}` : '';
        const subjects = this.mails.length ? ` (subjects: ${this.mails.map((m) => JSON.stringify(m.subject)).join(', ')})` : '';
        reject(new Error(`expected ${n} mail(s) within ${timeoutMs} ms, ${this.mails.length} arrived${subjects}${errors}`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }

  /** Stops listening; a connection still open is cut after a second. */
  close() {
    return new Promise((resolve) => this.server.close(resolve));
  }
}

/** What a test asserts on, from mailparser's parsed mail and the SMTP session. */
function mailOf(parsed, session) {
  return {
    from: parsed.from ? parsed.from.text : undefined,
    to: parsed.to
      ? []
          .concat(parsed.to)
          .map((a) => a.text)
          .join(', ')
      : undefined,
    subject: parsed.subject,
    text: parsed.text,
    html: parsed.html,
    attachments: (parsed.attachments || []).map((a) => ({ filename: a.filename, contentType: a.contentType, content: a.content })),
    envelope: {
      from: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined,
      to: session.envelope.rcptTo.map((r) => r.address),
    },
    user: session.user,
  };
}

module.exports = { SmtpServer };
