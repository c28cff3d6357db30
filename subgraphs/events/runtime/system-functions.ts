// System-mode functions: built into the platform and registered here in code. A function
// with execution_mode "system" names one through `system_function`.
//   send_email  params {to, subject, text}: one message through SMTP_URL (logged when unset);
//               at most 10 recipients, subject 200 characters, text 100 KiB.
//   echo        returns {params, user}: a no-op for wiring tests and benchmarks.
import type { Platform } from '../../core/context.js';
import { failed, type RunOutcome } from './outcome.js';

export interface SystemCall {
  platform: Platform;
  params: unknown;
  user: unknown;
  timeoutMs: number;
}

type SystemFunction = (call: SystemCall) => Promise<RunOutcome>;

const EMAIL = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:"]+$/;

function mailParams(p: unknown): { to: string[]; subject: string; text: string } | string {
  if (typeof p !== 'object' || p === null) return 'params must be an object {to, subject, text}.';
  const { to, subject, text } = p as Record<string, unknown>;
  const list = typeof to === 'string' ? [to] : Array.isArray(to) ? to : [];
  if (list.length === 0 || list.length > 10 || !list.every((a) => typeof a === 'string' && EMAIL.test(a) && a.length <= 254))
    return '"to" must be one to ten e-mail addresses.';
  if (typeof subject !== 'string' || !subject.trim() || subject.length > 200 || /[\r\n]/.test(subject))
    return '"subject" must be a single line of at most 200 characters.';
  if (typeof text !== 'string' || Buffer.byteLength(text) > 100 * 1024) return '"text" must be a string of at most 100 KiB.';
  return { to: list as string[], subject, text };
}

async function sendEmail(call: SystemCall): Promise<RunOutcome> {
  const m = mailParams(call.params);
  if (typeof m === 'string') return failed(m);
  const smtpUrl = call.platform.config.smtpUrl;
  if (!smtpUrl) {
    call.platform.log.info({ recipients: m.to.length, subject: m.subject }, 'send_email: SMTP_URL is not set; message not sent');
    return {
      status: 'succeeded',
      result: { sent: false, recipients: m.to.length },
      error: null,
      logs: ['SMTP is not configured: message logged'],
    };
  }
  const u = new URL(smtpUrl);
  const from = u.searchParams.get('from') || 'Tenantry <no-reply@localhost>';
  u.searchParams.delete('from');
  const t = call.timeoutMs;
  // Imported on the first e-mail: most processes never send one.
  const { createTransport } = (await import('nodemailer')).default;
  const transport = createTransport({ url: u.toString(), connectionTimeout: t, greetingTimeout: t, socketTimeout: t } as never);
  try {
    const info = await transport.sendMail({ from, to: m.to, subject: m.subject, text: m.text });
    return { status: 'succeeded', result: { sent: true, message_id: info.messageId, recipients: m.to.length }, error: null, logs: [] };
  } catch (e) {
    return failed(`Sending failed: ${(e as Error).message}`);
  } finally {
    transport.close();
  }
}

async function echo(call: SystemCall): Promise<RunOutcome> {
  return { status: 'succeeded', result: { params: call.params ?? null, user: call.user ?? null }, error: null, logs: [] };
}

export const SYSTEM_FUNCTIONS: ReadonlyMap<string, SystemFunction> = new Map<string, SystemFunction>([
  ['send_email', sendEmail],
  ['echo', echo],
]);
