// The client's download guards against a lying service, as any caller meets them: a body longer than
// the listed size, sent all at once before the caller reads, fails the stream with the refusal when
// the caller reads it, and never as an unhandled error that would bring the heir's app down.
import { afterEach, describe, expect, it } from 'vitest'
import { VaultApiClient, VaultApiError } from '../../src/service-client'
import { newVault, startFakeService } from './fake-vault-service'
import { expectNeverSent, pause, type RecordingListener } from './hostile-world'

const cleanup: RecordingListener[] = []
afterEach(async () => {
  for (const item of cleanup.splice(0)) await item.stop()
})

describe('client downloads against a lying service', () => {
  it('a body past the listed size, read late: the caller gets the refusal, the process no unhandled error', async () => {
    const vault = newVault()
    const service = await startFakeService({
      key: vault.heirCode,
      vaultId: vault.vaultId,
      lie: (_q, response, url) => {
        if (!url.pathname.endsWith('/content')) return false
        response.writeHead(200, { 'content-type': 'application/octet-stream' })
        response.end(Buffer.alloc(256 * 1024, 1))
        return true
      },
    })
    cleanup.push(service)
    const client = new VaultApiClient({
      baseUrl: service.origin,
      apiKey: vault.heirCode,
      prefix: '/api',
      timeoutMs: 500,
      maxRetries: 0,
    })
    const { stream } = await client.downloadAssetFrom(vault.vaultId, 'ast_1', 0, undefined, 100)
    // The whole body has arrived and been refused before anyone reads.
    await pause(200)
    const error = await (async () => {
      try {
        for await (const _ of stream) {
          // reading until the refusal
        }
      } catch (e) {
        return e
      }
      return undefined
    })()
    expect(error).toBeInstanceOf(VaultApiError)
    expect((error as VaultApiError).userMessage).toContain('sent more than the 100 bytes it listed')
    expectNeverSent(vault.heirCode)
  })
})
