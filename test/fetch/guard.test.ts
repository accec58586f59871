import { describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../src/sources/fetch/index.ts';
import { blockedReason, compilePolicy, isHostAllowed } from '../../src/sources/fetch/guard.ts';

describe('isPublicAddress', () => {
  it.each([
    // IPv4 public
    ['8.8.8.8', true],
    ['93.184.215.14', true],
    ['1.1.1.1', true],
    ['172.15.255.255', true], // just below 172.16/12
    ['172.32.0.1', true], // just above
    ['100.63.255.255', true], // just below 100.64/10
    ['100.128.0.1', true], // just above
    ['11.0.0.1', true],
    // IPv4 non-public
    ['127.0.0.1', false],
    ['127.255.255.254', false],
    ['10.0.0.1', false],
    ['10.255.255.255', false],
    ['172.16.0.1', false],
    ['172.31.255.255', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['169.254.0.1', false],
    ['100.64.0.1', false],
    ['100.127.255.255', false],
    ['0.0.0.0', false],
    ['0.1.2.3', false],
    ['255.255.255.255', false],
    ['224.0.0.1', false],
    ['239.255.255.250', false],
    ['192.0.2.1', false], // TEST-NET-1
    ['198.18.0.1', false], // benchmarking
    ['240.0.0.1', false], // reserved
    // IPv6 public
    ['2606:4700:4700::1111', true],
    ['2001:4860:4860::8888', true],
    ['2a00:1450:4001::1', true],
    ['64:ff9b::808:808', true], // NAT64 of 8.8.8.8 (DNS64 networks must still reach public feeds)
    ['2002:808:808::1', true], // 6to4 of 8.8.8.8
    // IPv6 non-public
    ['::1', false],
    ['::', false],
    ['fc00::1', false],
    ['fd12:3456:789a::1', false],
    ['fe80::1', false],
    ['fe80::1%eth0', false],
    ['fec0::1', false], // deprecated site-local
    ['ff02::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:7f00:1', false],
    ['::ffff:10.0.0.1', false],
    ['::ffff:169.254.169.254', false],
    ['::127.0.0.1', false], // deprecated IPv4-compatible
    ['64:ff9b::7f00:1', false], // NAT64 of 127.0.0.1
    ['64:ff9b::a00:1', false], // NAT64 of 10.0.0.1
    ['64:ff9b:1::a00:1', false], // local-use NAT64
    ['2002:7f00:1::1', false], // 6to4 of 127.0.0.1
    ['2002:c0a8:101::1', false], // 6to4 of 192.168.1.1
    ['2001::1', false], // Teredo
    ['2001:db8::1', false], // documentation
    ['100::1', false], // discard
    ['4000::1', false], // outside 2000::/3
    ['[::1]', false],
    // not addresses
    ['localhost', false],
    ['example.org', false],
    ['', false],
    ['999.1.1.1', false],
  ])('%s → %s', (ip, expected) => {
    expect(isPublicAddress(ip)).toBe(expected);
  });

  it('treats allow-listed addresses and CIDRs as public', () => {
    expect(isPublicAddress('127.0.0.1', ['127.0.0.1'])).toBe(true);
    expect(isPublicAddress('127.0.0.1', ['127.0.0.1/32'])).toBe(true);
    expect(isPublicAddress('127.0.0.2', ['127.0.0.1/32'])).toBe(false);
    expect(isPublicAddress('10.20.30.40', ['10.20.0.0/16'])).toBe(true);
    expect(isPublicAddress('10.21.0.1', ['10.20.0.0/16'])).toBe(false);
    expect(isPublicAddress('::ffff:127.0.0.1', ['127.0.0.1'])).toBe(true); // mapped form is the same host
    expect(isPublicAddress('127.0.0.1', ['::ffff:127.0.0.0/104'])).toBe(true);
    expect(isPublicAddress('::1', ['::1'])).toBe(true);
    expect(isPublicAddress('::1', ['127.0.0.1'])).toBe(false);
    expect(isPublicAddress('fd00::5', ['fd00::/8'])).toBe(true);
    expect(isPublicAddress('10.0.0.1', ['intranet.example'])).toBe(false); // names exempt names, not addresses
  });

  it('explains refusals in words a user understands', () => {
    expect(blockedReason('10.0.0.5')).toBe('a private address');
    expect(blockedReason('127.0.0.1')).toBe('a loopback address');
    expect(blockedReason('169.254.169.254')).toMatch(/link-local.*metadata/);
    expect(blockedReason('100.64.0.1')).toMatch(/carrier-grade NAT/);
    expect(blockedReason('64:ff9b::a00:1')).toBe('a NAT64 address embedding 10.0.0.1, a private address');
    expect(blockedReason('8.8.8.8')).toBeUndefined();
  });
});

describe('allow-list compilation', () => {
  it('matches host names case-insensitively and ignores a trailing dot', () => {
    const policy = compilePolicy(['Feeds.Intranet', '10.0.0.0/8']);
    expect(isHostAllowed('feeds.intranet', 443, policy)).toBe(true);
    expect(isHostAllowed('FEEDS.INTRANET.', 80, policy)).toBe(true);
    expect(isHostAllowed('evil.feeds.intranet', 443, policy)).toBe(false);
    expect(isHostAllowed('intranet', 443, policy)).toBe(false);
  });

  it('regression: an allow entry covered every port of the host; now host[:port], no port meaning 80 and 443 only', () => {
    const policy = compilePolicy(['feeds.intranet', '10.0.0.5', 'cal.intranet:8080', '127.0.0.1:4000', '[::1]:4001', '10.9.0.0/16:8443', '[fd00::/8]:9000']);
    expect(isHostAllowed('feeds.intranet', 80, policy)).toBe(true);
    expect(isHostAllowed('feeds.intranet', 443, policy)).toBe(true);
    expect(isHostAllowed('feeds.intranet', 6379, policy)).toBe(false);
    expect(isHostAllowed('10.0.0.5', 443, policy)).toBe(true);
    expect(isHostAllowed('10.0.0.5', 22, policy)).toBe(false);
    expect(isHostAllowed('cal.intranet', 8080, policy)).toBe(true);
    expect(isHostAllowed('cal.intranet', 443, policy)).toBe(false);
    expect(isHostAllowed('127.0.0.1', 4000, policy)).toBe(true);
    expect(isHostAllowed('127.0.0.1', 6379, policy)).toBe(false);
    expect(isHostAllowed('[::1]', 4001, policy)).toBe(true);
    expect(isHostAllowed('::1', 4000, policy)).toBe(false);
    expect(isHostAllowed('10.9.4.4', 8443, policy)).toBe(true);
    expect(isHostAllowed('10.9.4.4', 443, policy)).toBe(false);
    expect(isHostAllowed('fd00::7', 9000, policy)).toBe(true);
    expect(() => compilePolicy(['host:0'])).toThrow(TypeError);
    expect(() => compilePolicy(['host:99999'])).toThrow(TypeError);
  });

  it('regression: an address entry covered every name resolving to it; it now matches that address as written only', () => {
    const policy = compilePolicy(['127.0.0.1:4000', '10.0.0.0/8']);
    expect(isHostAllowed('127.0.0.1', 4000, policy)).toBe(true);
    expect(isHostAllowed('rebind.attacker.example', 4000, policy)).toBe(false);
    expect(isHostAllowed('internal.example', 443, policy)).toBe(false);
  });

  it.each(['10.0.0.0/33', 'http://x', '10.0.0.1 ', ''])('rejects %j or accepts it trimmed', (entry) => {
    if (entry.trim() === '10.0.0.1') {
      expect(() => compilePolicy([entry])).not.toThrow();
    } else {
      expect(() => compilePolicy([entry])).toThrow(TypeError);
    }
  });
});
