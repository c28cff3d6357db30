// SSRF guard and Standard Webhooks signature of proxy functions.
import crypto from 'node:crypto';
import { isBlockedAddress, signWebhook } from '../../subgraphs/events/runtime/webhook.js';

describe('isBlockedAddress', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '::1',
    '::',
    'fc00::1',
    'fd12::1',
    'fe80::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
  ])('blocks %s', (ip) => expect(isBlockedAddress(ip)).toBe(true));
  it.each(['8.8.8.8', '172.32.0.1', '192.169.0.1', '2001:4860:4860::8888', '1.1.1.1'])('allows %s', (ip) =>
    expect(isBlockedAddress(ip)).toBe(false),
  );
});

describe('signWebhook', () => {
  it('is v1 + base64 HMAC-SHA256 of "id.timestamp.body" keyed by the base64 part of the secret', () => {
    const key = crypto.randomBytes(32);
    const secret = 'whsec_' + key.toString('base64');
    const expected = crypto.createHmac('sha256', key).update('msg_1.1700000000.{"a":1}').digest('base64');
    expect(signWebhook(secret, 'msg_1', 1700000000, '{"a":1}')).toBe('v1,' + expected);
  });
});
