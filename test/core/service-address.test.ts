// Whether heirs outside this computer and its network could reach a service address, and the one
// rule for which addresses the app talks to at all.

import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { networkInterfaces } from 'node:os'
import { describe, expect, it } from 'vitest'
import { normaliseServiceUrl } from '../../src/main/core/connections'
import { listHeirFiles } from '../../src/recovery/heir-recovery'
import { checkServiceAddress, isPubliclyReachable } from '../../src/service-client/service-address'

const reach = (host: string) => isPubliclyReachable(`https://${host}:8443/api`)

describe('isPubliclyReachable', () => {
  it('loopback and the unspecified address are private', () => {
    for (const host of ['127.0.0.1', '127.255.0.9', '0.0.0.0', 'localhost', '[::1]', '[::]']) {
      expect(reach(host), host).toBe(false)
    }
  })

  it('10/8 is private, 11.x is public', () => {
    expect(reach('10.0.0.1')).toBe(false)
    expect(reach('10.255.255.254')).toBe(false)
    expect(reach('11.0.0.1')).toBe(true)
    expect(reach('9.255.255.255')).toBe(true)
  })

  it('172.16/12 edges: 172.16 and 172.31 private, 172.15 and 172.32 public', () => {
    expect(reach('172.16.0.1')).toBe(false)
    expect(reach('172.31.255.254')).toBe(false)
    expect(reach('172.15.255.255')).toBe(true)
    expect(reach('172.32.0.1')).toBe(true)
  })

  it('192.168/16 is private, 192.169 public', () => {
    expect(reach('192.168.1.20')).toBe(false)
    expect(reach('192.169.1.20')).toBe(true)
  })

  it('link-local 169.254/16 is private, 169.253 public', () => {
    expect(reach('169.254.10.10')).toBe(false)
    expect(reach('169.253.10.10')).toBe(true)
  })

  it('carrier-grade NAT 100.64/10: 100.64 and 100.127 private, 100.63 and 100.128 public', () => {
    expect(reach('100.64.0.1')).toBe(false)
    expect(reach('100.127.255.254')).toBe(false)
    expect(reach('100.63.255.255')).toBe(true)
    expect(reach('100.128.0.1')).toBe(true)
  })

  it('IPv6: unique-local fc00::/7 and link-local fe80::/10 are private, global unicast is public', () => {
    for (const host of ['[fc00::1]', '[fd12:3456:789a::1]', '[fe80::1]', '[febf::1]']) {
      expect(reach(host), host).toBe(false)
    }
    expect(reach('[fec0::1]')).toBe(true)
    expect(reach('[2001:4860:4860::8888]')).toBe(true)
  })

  // BUG (src/service-client/service-address.ts, privateIpv6): the WHATWG URL parser rewrites
  // [::ffff:10.0.0.1] as [::ffff:a00:1], so the dotted-quad regex never matches and a private
  // IPv4-mapped address counts as public. Left failing on purpose; see the report.
  it('IPv4-mapped IPv6 of a private IPv4 address is private', () => {
    expect(new URL('http://[::ffff:10.0.0.1]/').hostname).toBe('[::ffff:a00:1]')
    expect(isPubliclyReachable('http://[::ffff:10.0.0.1]/')).toBe(false)
    expect(isPubliclyReachable('http://[::ffff:127.0.0.1]:3000/')).toBe(false)
    expect(isPubliclyReachable('http://[::ffff:192.168.0.5]/')).toBe(false)
  })

  it('IPv4-mapped IPv6 of a public IPv4 address is public', () => {
    expect(isPubliclyReachable('http://[::ffff:8.8.8.8]/')).toBe(true)
  })

  it('single-label names and local-only suffixes are private', () => {
    for (const host of [
      'nas',
      'vault-box',
      'vault.local',
      'server.lan',
      'vault.internal',
      'box.home',
      'pi.home.arpa',
      'a.localdomain',
      'app.localhost',
      'VAULT.LOCAL',
    ]) {
      expect(reach(host), host).toBe(false)
    }
  })

  it('a public name and a public IP are reachable', () => {
    expect(isPubliclyReachable('https://vault.example.com')).toBe(true)
    expect(isPubliclyReachable('https://vault.example.com/api/')).toBe(true)
    expect(isPubliclyReachable('http://8.8.8.8:8080')).toBe(true)
    expect(isPubliclyReachable('https://203.0.114.7')).toBe(true)
  })

  it('something that is not a URL is not reachable', () => {
    expect(isPubliclyReachable('not a url')).toBe(false)
    expect(isPubliclyReachable('')).toBe(false)
  })
})

describe('one address rule for owners and heirs', () => {
  it('allows https anywhere and plain http only to this computer', () => {
    expect(checkServiceAddress('https://vault.example.com/api/')).toEqual({
      ok: true,
      url: 'https://vault.example.com/api',
    })
    for (const local of [
      'http://127.0.0.1:8787',
      'http://127.8.0.1:8787',
      'http://localhost:1',
      'http://[::1]:2',
    ]) {
      expect(checkServiceAddress(local).ok, local).toBe(true)
    }
    for (const remote of ['http://vault.example.com', 'http://192.168.1.4:8787', 'http://127.example.com']) {
      expect(checkServiceAddress(remote), remote).toMatchObject({ ok: false, problem: 'plain-http-remote' })
    }
    expect(checkServiceAddress('ftp://vault.example.com')).toMatchObject({ ok: false, problem: 'not-http' })
    expect(checkServiceAddress('https://me:pw@vault.example.com')).toMatchObject({
      ok: false,
      problem: 'credentials',
    })
    expect(checkServiceAddress('vault dot example')).toMatchObject({ ok: false, problem: 'not-an-address' })
  })

  it('adds the scheme to an address typed without one: http:// for this computer, https:// elsewhere', () => {
    const typed: [string, string][] = [
      ['127.0.0.1:8799', 'http://127.0.0.1:8799'],
      [' localhost:8799/ ', 'http://localhost:8799'],
      ['LOCALHOST:1', 'http://localhost:1'],
      ['[::1]:8799', 'http://[::1]:8799'],
      ['app.localhost:3000', 'http://app.localhost:3000'],
      ['vault.example.com', 'https://vault.example.com'],
      ['vault.example.com:8443/api/', 'https://vault.example.com:8443/api'],
      // Plain http is refused off this computer, so a LAN address without a scheme gets https.
      ['192.168.1.4:8787', 'https://192.168.1.4:8787'],
    ]
    for (const [input, url] of typed) {
      expect(checkServiceAddress(input), input).toEqual({ ok: true, url })
      expect(normaliseServiceUrl(input), input).toBe(url)
    }
    // A scheme that is there is kept, and judged as before.
    expect(checkServiceAddress('http://192.168.1.4:8787')).toMatchObject({
      ok: false,
      problem: 'plain-http-remote',
    })
    expect(checkServiceAddress('ftp://vault.example.com')).toMatchObject({ ok: false, problem: 'not-http' })
    expect(checkServiceAddress('me:pw@vault.example.com')).toMatchObject({
      ok: false,
      problem: 'credentials',
    })
    // A scheme with one slash is a typo to point at, not a host named "htp" to try and fail to reach.
    for (const nonsense of [
      '',
      'mailto:someone',
      'vault dot example',
      'http:example.com',
      'htp:/127.0.0.1:8787',
      'https:/vault.example.com',
    ]) {
      expect(checkServiceAddress(nonsense), nonsense).toMatchObject({ ok: false, problem: 'not-an-address' })
    }
  })

  it('refuses the same addresses for a connection and for an heir, before anything is sent', async () => {
    let requests = 0
    const server = createServer((_request, response) => {
      requests++
      response.writeHead(500).end()
    })
    await new Promise<void>((done) => server.listen(0, '0.0.0.0', done))
    const port = (server.address() as AddressInfo).port
    // A non-loopback address of this machine stands in for a remote host.
    const lan = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && a.family === 'IPv4' && !a.internal)?.address
    const remote = `http://${lan ?? 'vault.example.com'}:${port}`
    try {
      expect(() => normaliseServiceUrl(remote)).toThrow(
        expect.objectContaining({ userMessage: expect.stringMatching(/https:\/\//) }),
      )
      await expect(
        listHeirFiles({ serviceUrl: remote, accessToken: 'hk_secret_code', vaultId: 'v1' }),
      ).rejects.toMatchObject({ code: 'INVALID_ADDRESS', message: expect.stringMatching(/https:\/\//) })
      expect(requests).toBe(0)
    } finally {
      server.close()
    }
  })

  it('tells an heir whose service redirects elsewhere what happened, and sends the code nowhere else', async () => {
    let otherSawCode = false
    const other = createServer((request, response) => {
      otherSawCode ||=
        JSON.stringify(request.headers).includes('hk_secret_code') || request.url!.includes('hk_')
      response.writeHead(200).end('{}')
    })
    await new Promise<void>((done) => other.listen(0, '127.0.0.1', done))
    const redirecting = createServer((_request, response) => {
      response
        .writeHead(302, {
          location: `http://localhost:${(other.address() as AddressInfo).port}/api/vaults/v1`,
        })
        .end()
    })
    await new Promise<void>((done) => redirecting.listen(0, '127.0.0.1', done))
    try {
      const serviceUrl = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}`
      await expect(
        listHeirFiles({ serviceUrl, accessToken: 'hk_secret_code', vaultId: 'v1' }),
      ).rejects.toMatchObject({
        code: 'INVALID_ADDRESS',
        message: expect.stringMatching(/redirect|another address|localhost/i),
      })
      expect(otherSawCode).toBe(false)
    } finally {
      other.close()
      redirecting.close()
    }
  })
})
