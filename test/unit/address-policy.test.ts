import type { LookupAddress } from 'node:dns';
import { describe, expect, it, vi } from 'vitest';
import { isPublicAddress, publicOnlyLookup, urlProblem } from '../../src/modules/webhooks/address-policy.js';
import { createSender } from '../../src/modules/webhooks/sender.js';

/** The names this file resolves to an address of its choice; every other name is looked up as usual. */
const ANSWERS: Record<string, string> = {
  'compatible.test': '::7f00:1',
  'nat64.test': '64:ff9b::a9fe:a9fe',
  'sixtofour.test': '2002:a00:1::1',
  'teredo.test': '2001:0:4136:e378:8000:63bf:80ff:fffe',
};
vi.mock('node:dns', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:dns')>();
  const lookup = (hostname: string, options: object, callback: (error: Error | null, addresses: LookupAddress[]) => void) => {
    const address = ANSWERS[hostname];
    if (address === undefined) return real.lookup(hostname, options as { all: true }, callback);
    callback(null, [{ address, family: 6 }]);
  };
  return { ...real, default: { ...real, lookup }, lookup };
});

const lookedUp = (hostname: string) =>
  new Promise<{ error: Error | null }>((resolve) => publicOnlyLookup(hostname, {}, (error) => resolve({ error: error as Error | null })));

/** docs/webhooks.md's SSRF rule: https:// and public addresses only, unless private ones are allowed. */

describe('public addresses', () => {
  it.each([
    ['8.8.8.8', true],
    ['2001:4860:4860::8888', true],
    ['127.0.0.1', false],
    ['10.0.0.1', false],
    ['172.16.5.4', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['224.0.0.1', false],
    ['::1', false],
    ['fd00::1', false],
    ['fe80::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:8.8.8.8', true],
    ['::', false],
    // IPv4-compatible (::/96), as written and as a URL writes it.
    ['::127.0.0.1', false],
    ['::7f00:1', false],
    ['::a9fe:a9fe', false],
    ['::a00:1', false],
    ['::808:808', true],
    // IPv4-mapped.
    ['::ffff:a00:1', false],
    // NAT64, the well-known prefix: judged by the last 32 bits.
    ['64:ff9b::7f00:1', false],
    ['64:ff9b::169.254.169.254', false],
    ['64:ff9b::8.8.8.8', true],
    // NAT64, the local-use prefix: never public, wherever its network puts the IPv4 address.
    ['64:ff9b:1::808:808', false],
    ['64:ff9b:1:808:800:8::', false],
    // 6to4: the IPv4 address in bits 16 to 48.
    ['2002:7f00:1::1', false],
    ['2002:c0a8:101::1', false],
    ['2002:808:808::1', true],
    // Teredo: the server in bits 32 to 64, the client inverted in the last 32; both must be public.
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', false],
    ['2001:0:4136:e378:8000:63bf:f5ff:fffe', false],
    ['2001:0:a00:1:8000:63bf:f7f7:f7f7', false],
    ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', true],
    ['not an address', false],
  ])('%s is public: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

describe('endpoint URLs', () => {
  it('takes https:// to a name or a public address', () => {
    expect(urlProblem('https://hooks.example.com/wharf', false)).toBeUndefined();
    expect(urlProblem('https://8.8.8.8:8443/x', false)).toBeUndefined();
  });

  it('refuses http://, private addresses written in the URL, credentials and non-URLs, each with its reason', () => {
    expect(urlProblem('http://hooks.example.com/', false)).toBe('Url must be https://');
    expect(urlProblem('https://127.0.0.1/x', false)).toBe('Url must reach a public address, not 127.0.0.1');
    expect(urlProblem('https://[::1]:8443/x', false)).toBe('Url must reach a public address, not ::1');
    expect(urlProblem('https://10.1.2.3/', false)).toBe('Url must reach a public address, not 10.1.2.3');
    expect(urlProblem('https://user:pw@hooks.example.com/', false)).toBe('Url must not carry a user name or password');
    expect(urlProblem('hooks.example.com', false)).toBe('Url must be an absolute URL');
    expect(urlProblem('ftp://hooks.example.com/', false)).toBe('Url must be https://');
  });

  it('takes http:// and private addresses when they are allowed, nothing but http and https', () => {
    expect(urlProblem('http://127.0.0.1:9000/hooks', true)).toBeUndefined();
    expect(urlProblem('https://10.1.2.3/', true)).toBeUndefined();
    expect(urlProblem('ftp://127.0.0.1/', true)).toBe('Url must be http:// or https://');
  });

  it('refuses a name that resolves to a private address when it connects', async () => {
    const looked = await lookedUp('localhost');
    expect(looked.error?.message).toMatch(/^localhost resolves to (127\.0\.0\.1|::1), which is not a public address$/);
  });

  it('refuses IPv6 forms that carry a loopback or private IPv4 address, like the IPv4 address itself', () => {
    expect(urlProblem('https://[::127.0.0.1]/hooks', false)).toBe('Url must reach a public address, not ::7f00:1');
    expect(urlProblem('https://[::ffff:10.0.0.1]/', false)).toBe('Url must reach a public address, not ::ffff:a00:1');
    expect(urlProblem('https://[64:ff9b::169.254.169.254]/', false)).toBe('Url must reach a public address, not 64:ff9b::a9fe:a9fe');
    expect(urlProblem('https://[2002:7f00:1::1]/', false)).toBe('Url must reach a public address, not 2002:7f00:1::1');
    expect(urlProblem('https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', false)).toBe(
      'Url must reach a public address, not 2001:0:4136:e378:8000:63bf:80ff:fffe',
    );
    expect(urlProblem('https://[64:ff9b::8.8.8.8]/hooks', false)).toBeUndefined();
    expect(urlProblem('https://[::127.0.0.1]/hooks', true)).toBeUndefined();
  });

  it('refuses a name that resolves to such a form when it connects', async () => {
    for (const [hostname, address] of Object.entries(ANSWERS)) {
      expect((await lookedUp(hostname)).error?.message).toBe(`${hostname} resolves to ${address}, which is not a public address`);
    }
  });

  it('refuses an attempt to such a URL, saved before this rule, without connecting', async () => {
    const sender = createSender({ allowPrivate: false });
    try {
      const outcome = await sender.send({ url: 'https://[::127.0.0.1]:1/hooks', body: '{}', headers: {} });
      expect(outcome).toMatchObject({
        ok: false,
        statusCode: null,
        response: null,
        error: 'Url must reach a public address, not ::7f00:1',
      });
    } finally {
      await sender.close();
    }
  });
});
