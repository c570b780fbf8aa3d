import { describe, expect, it } from 'vitest';
import { isPublicAddress, publicOnlyLookup, urlProblem } from '../../src/modules/webhooks/address-policy.js';

/** DESIGN §13's SSRF rule: https:// and public addresses only, unless private ones are allowed. */

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
    const looked = await new Promise<{ error: Error | null }>((resolve) =>
      publicOnlyLookup('localhost', {}, (error) => resolve({ error: error as Error | null })),
    );
    expect(looked.error?.message).toMatch(/^localhost resolves to (127\.0\.0\.1|::1), which is not a public address$/);
  });
});
