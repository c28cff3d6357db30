// Invitation e-mail. With SMTP_URL set, the message goes out through SMTP (nodemailer);
// without it, one log line says that an invitation exists for that address. The token and
// the link that carries it never reach a log line, in either case.
import type nodemailer from 'nodemailer';
import type { RequestContext } from '../core/context.js';

export interface InvitationMail {
  /** The invitee's address. */
  to: string;
  organizationName: string;
  organizationSlug: string;
  invitationUuid: string;
  /** Holds the token: goes into the message body only. */
  link: string;
  expiresAt: Date;
  inviter: string | null;
  /** `created` for a new invitation, `renewed` for a resend. */
  kind: 'created' | 'renewed';
}

const DEFAULT_FROM = 'Tenantry <no-reply@localhost>';

/**
 * Transport options from SMTP_URL (`smtp://user:pass@host:587/`, `smtps://…`). The sender is
 * the URL's `from` query parameter, else a no-reply address. Bounded time-outs, so a mail
 * server that stops answering delays an invitation by seconds, not minutes.
 */
export function smtpOptions(smtpUrl: string): { transport: { url: string } & Record<string, unknown>; from: string } {
  const u = new URL(smtpUrl);
  const from = u.searchParams.get('from') || DEFAULT_FROM;
  u.searchParams.delete('from');
  return {
    transport: { url: u.toString(), connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 },
    from,
  };
}

function body(m: InvitationMail): string {
  const by = m.inviter ? `${m.inviter} invited you` : 'You have been invited';
  return [
    `${by} to join the organization "${m.organizationName}".`,
    '',
    `Open this invitation to accept or decline it: ${m.link}`,
    `(accept: POST ${m.link}accept/, decline: POST ${m.link}decline/)`,
    '',
    `The invitation expires at ${m.expiresAt.toISOString()}.`,
  ].join('\n');
}

/**
 * Sends (or logs) the invitation. A delivery failure is logged and swallowed: the invitation
 * exists and the inviter holds its token, so they can pass it on or resend.
 */
export async function sendInvitationMail(ctx: RequestContext, m: InvitationMail): Promise<void> {
  const where = { organization: m.organizationSlug, invitation: m.invitationUuid };
  const smtpUrl = ctx.platform.config.smtpUrl;
  if (!smtpUrl) {
    ctx.log.info(where, `invitation ${m.kind} for ${m.to} (SMTP_URL is not set: no e-mail sent)`);
    return;
  }
  const { transport, from } = smtpOptions(smtpUrl);
  // Imported on the first e-mail: most processes never send one.
  const { createTransport } = (await import('nodemailer')).default;
  const transporter = createTransport(transport as Parameters<typeof nodemailer.createTransport>[0]);
  try {
    await transporter.sendMail({
      from,
      to: m.to,
      subject: `Invitation to join ${m.organizationName}`,
      text: body(m),
    });
    ctx.log.info(where, `invitation e-mail sent to ${m.to}`);
  } catch (e) {
    // The error of a transport names the server, never the message body.
    ctx.log.warn({ ...where, err: (e as Error).message }, `invitation e-mail to ${m.to} could not be sent`);
  } finally {
    transporter.close();
  }
}
