// Bundled into a test page (recovery-page-remote.spec.ts): the recovery page's remote sources as the
// page runs them, in Chromium, rebuilding the vault key from two kits and decrypting every blob read
// through a source, so the journey can compare each file with its original byte for byte.

import { PageSourceError } from '../../../src/recovery-page/page-source'
import { arweaveSource, serviceSource } from '../../../src/recovery-page/remote-sources'
import { combineShareWords, openVaultBlob } from '../../../src/vault-format'

export interface ProbeRequest {
  kind: 'service' | 'arweave'
  kits: string[]
  serviceUrl?: string
  accessToken?: string
  gatewayUrl?: string
}

export type ProbeResult =
  | { ok: true; labels: string[]; files: Record<string, string> }
  | { ok: false; code: string; message: string }

async function* chunks(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return
    yield value
  }
}

async function sha256Hex(pieces: Uint8Array[]): Promise<string> {
  const all = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const piece of pieces) {
    all.set(piece, at)
    at += piece.length
  }
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', all))
  return [...digest].map((b) => b.toString(16).padStart(2, '0')).join('')
}

async function probe(request: ProbeRequest): Promise<ProbeResult> {
  const { vaultKey, vaultId } = await combineShareWords(request.kits)
  const source =
    request.kind === 'service'
      ? serviceSource({
          serviceUrl: request.serviceUrl!,
          accessToken: request.accessToken!,
          vaultId,
          timeoutMs: 10_000,
        })
      : arweaveSource({ gatewayUrl: request.gatewayUrl!, vaultId, timeoutMs: 10_000 })
  try {
    const blobs = await source.list()
    const files: Record<string, string> = {}
    for (const blob of blobs) {
      const opened = await openVaultBlob(chunks(await blob.open()), { vaultKey, vaultId })
      // The vault's list of files: read whole (so its stream was checked), nothing to compare.
      if (opened.kind === 'manifest') continue
      if (opened.kind !== 'file') throw new Error(`${blob.label} is not a single file`)
      const pieces: Uint8Array[] = []
      for await (const piece of opened.body) pieces.push(piece)
      files[opened.identity?.path ?? blob.label] = await sha256Hex(pieces)
    }
    return { ok: true, labels: blobs.map((b) => b.label), files }
  } catch (error) {
    if (error instanceof PageSourceError) return { ok: false, code: error.code, message: error.message }
    throw error
  }
}

;(globalThis as { probe?: typeof probe }).probe = probe
