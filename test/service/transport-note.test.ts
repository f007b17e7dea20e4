// What `serve` prints about its transport at start: a config whose public URL is plain http to another
// computer (written by hand, or before init refused it) starts, but with a warning that says what travels
// in clear and how to fix it; loopback and https addresses get none.
import { describe, expect, it } from 'vitest'
import { isLoopbackHostName } from '../../src/service/allowed-hosts'
import { type ServiceConfig, transportNote } from '../../src/service/service-config'

function config(publicUrl: string, extra: Partial<ServiceConfig> = {}): ServiceConfig {
  return { version: 1, dataDir: '/srv/vault', listen: { host: '0.0.0.0', port: 8080 }, publicUrl, ...extra }
}

describe('serve’s transport note', () => {
  it('warns loudly when the public URL is plain http to another computer', () => {
    for (const url of ['http://vault.example.org', 'http://192.168.1.20:8080', 'http://[2001:db8::1]:8080']) {
      const note = transportNote(config(url))
      expect(note).toMatch(/WARNING: the public URL .* is plain http to another computer/)
      expect(note).toMatch(/access codes in e-mailed links cross the network in clear/)
      expect(note).toMatch(/--tls-cert\/--tls-key or --behind-proxy/)
    }
    // Behind a proxy the links still say http://, so they still travel in clear.
    expect(transportNote(config('http://vault.example.org', { trustProxy: ['127.0.0.1'] }))).toMatch(
      /WARNING/,
    )
  })

  it('says nothing alarming for this computer or an https address', () => {
    for (const url of ['http://127.0.0.1:7777', 'http://localhost:7777', 'http://[::1]:7777']) {
      expect(transportNote(config(url))).not.toMatch(/WARNING/)
    }
    const https = config('https://vault.example.org', { trustProxy: ['127.0.0.1'] })
    expect(transportNote(https)).not.toMatch(/WARNING/)
  })
})

describe('isLoopbackHostName', () => {
  it('knows the names and addresses that stay on this computer', () => {
    for (const host of [
      'localhost',
      'LOCALHOST',
      'app.localhost',
      '127.0.0.1',
      '127.8.9.10',
      '::1',
      '[::1]',
    ]) {
      expect(isLoopbackHostName(host)).toBe(true)
    }
    for (const host of [
      'vault.example.org',
      '10.0.0.1',
      '128.0.0.1',
      '::2',
      'localhost.example.org',
      '127.0.0.1.nip.io',
    ]) {
      expect(isLoopbackHostName(host)).toBe(false)
    }
  })
})
