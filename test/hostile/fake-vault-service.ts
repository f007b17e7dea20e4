// A fake Vault Service on loopback that answers as the real one would (the spec's envelopes, /api
// prefix, byte ranges on downloads) until a case tells it how to lie: `lie` sees every request first
// and may answer it itself. Every request is recorded (method, path, headers), so a case can prove
// where the key went. Files are real encrypted blobs made with the vault key of the case.
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Asset, Vault } from '../../src/shared/api'
import {
  collectBytes,
  encryptBundleStream,
  encryptManifest,
  encryptStream,
  generateVaultKey,
} from '../../src/vault-format'
import { type Handler, RecordingListener } from './hostile-world'

export interface FakeAsset {
  id: string
  filename: string
  /** What GET .../content serves. */
  blob: Buffer
  /** What the asset list says the size is (default: the blob's length). */
  sizeBytes?: number
  createdAt: string
  metadata?: Record<string, unknown>
}

export interface FakeServiceOptions {
  /** The only key it accepts (an owner's sk_human_ key or an heir's hk_ code). */
  key: string
  vaultId: string
  /** Fields of the vault to change (state, id...). */
  vault?: Partial<Vault> & Record<string, unknown>
  assets?: FakeAsset[]
  /** Sees every request first; returns true when it answered. */
  lie?: (request: IncomingMessage, response: ServerResponse, url: URL) => boolean | Promise<boolean>
}

export type FakeService = RecordingListener & {
  options: FakeServiceOptions
  /** Assets the fake stored from uploads, by id. */
  uploads: Map<string, Buffer>
}

export function json(response: ServerResponse, status: number, body: unknown): true {
  const text = JSON.stringify(body)
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  })
  response.end(text)
  return true
}

function refuse(response: ServerResponse, status: number, code: string, message: string): void {
  json(response, status, { error: { code, message } })
}

export function vaultOf(options: FakeServiceOptions): Vault & Record<string, unknown> {
  const now = new Date().toISOString()
  return {
    id: options.vaultId,
    state: 'released',
    createdAt: now,
    updatedAt: now,
    creditsBalance: 1000,
    assetCount: options.assets?.length ?? 0,
    guardianCount: 3,
    heirCount: 1,
    releaseTrigger: 'manual',
    sssPreset: 'standard',
    releasedAt: now,
    ...options.vault,
  }
}

export function assetOf(asset: FakeAsset): Asset & { metadata?: Record<string, unknown> } {
  return {
    id: asset.id,
    filename: asset.filename,
    contentType: 'application/octet-stream',
    sizeBytes: asset.sizeBytes ?? asset.blob.length,
    category: 'document',
    storageTxId: `local:${asset.id}`,
    createdAt: asset.createdAt,
    ...(asset.metadata ? { metadata: asset.metadata } : {}),
  }
}

/** Serves `bytes` honouring a "bytes=N-" range, as the real service does. */
export function serveBytes(request: IncomingMessage, response: ServerResponse, bytes: Buffer): true {
  const range = /^bytes=(\d+)-$/.exec(request.headers.range ?? '')
  const start = range ? Number(range[1]) : 0
  if (range && start < bytes.length) {
    response.writeHead(206, {
      'content-type': 'application/octet-stream',
      'content-length': bytes.length - start,
      'content-range': `bytes ${start}-${bytes.length - 1}/${bytes.length}`,
    })
    response.end(bytes.subarray(start))
    return true
  }
  response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': bytes.length })
  response.end(bytes)
  return true
}

async function drain(request: IncomingMessage): Promise<Buffer> {
  const pieces: Buffer[] = []
  for await (const piece of request) pieces.push(piece as Buffer)
  return Buffer.concat(pieces)
}

export async function startFakeService(options: FakeServiceOptions): Promise<FakeService> {
  const uploads = new Map<string, Buffer>()
  const honest: Handler = async (request, response, url) => {
    if (options.lie && (await options.lie(request, response, url))) return
    if (request.headers['x-api-key'] !== options.key) {
      refuse(response, 401, 'UNAUTHORIZED', 'invalid API key')
      return
    }
    const parts = url.pathname.split('/').slice(1).map(decodeURIComponent)
    if (parts[0] !== 'api') return refuse(response, 404, 'NOT_FOUND', 'no such route')
    const [, what, vaultId, sub, assetId, content] = parts
    const assets = options.assets ?? []
    if (what === 'rehearsal') return refuse(response, 404, 'NOT_FOUND', 'no rehearsal for this key')
    if (what !== 'vault') return refuse(response, 404, 'NOT_FOUND', 'no such route')
    if (vaultId === undefined && request.method === 'GET')
      return json(response, 200, { data: [vaultOf(options)] })
    if (vaultId !== options.vaultId) return refuse(response, 404, 'NOT_FOUND', 'vault not found')
    if (sub === undefined && request.method === 'GET') return json(response, 200, { data: vaultOf(options) })
    if (sub === 'asset' && assetId === undefined && request.method === 'GET') {
      const limit = Number(url.searchParams.get('limit') ?? 50)
      const offset = Number(url.searchParams.get('offset') ?? 0)
      return json(response, 200, {
        data: assets.slice(offset, offset + limit).map(assetOf),
        meta: { total: assets.length, limit, offset },
      })
    }
    if (sub === 'asset' && assetId === undefined && request.method === 'POST') {
      const body = await drain(request)
      const id = `ast_${randomBytes(12).toString('base64url')}`
      uploads.set(id, body)
      return json(response, 201, {
        data: {
          ...assetOf({ id, filename: 'upload', blob: body, createdAt: new Date().toISOString() }),
          creditsConsumed: 1,
        },
      })
    }
    if (sub === 'asset' && content === 'content' && request.method === 'GET') {
      const asset = assets.find((a) => a.id === assetId)
      if (!asset) return refuse(response, 404, 'NOT_FOUND', 'asset not found')
      return serveBytes(request, response, asset.blob)
    }
    refuse(response, 404, 'NOT_FOUND', 'no such route')
  }
  const listener = new RecordingListener(honest)
  await listener.start()
  return Object.assign(listener, { options, uploads })
}

/** A vault of the case: its id, key and an heir's access code. */
export function newVault(): { vaultId: string; vaultKey: Uint8Array; heirCode: string; ownerKey: string } {
  return {
    vaultId: randomUUID(),
    vaultKey: generateVaultKey(),
    heirCode: `hk_${randomBytes(32).toString('base64url')}`,
    ownerKey: `sk_human_${randomBytes(32).toString('base64url')}`,
  }
}

/** A format-2 blob of one file, named inside. */
export async function fileBlob(
  vault: { vaultId: string; vaultKey: Uint8Array },
  path: string,
  text: string | Buffer,
  writtenAtMs = Date.now(),
): Promise<Buffer> {
  const bytes = Buffer.from(text)
  const identity = { path, size: bytes.length, writtenAtMs }
  return Buffer.from(
    await collectBytes(
      encryptStream([bytes], { vaultKey: vault.vaultKey, vaultId: vault.vaultId, identity }),
    ),
  )
}

/** A bundle of small files sealed with its date. */
export async function bundleBlob(
  vault: { vaultId: string; vaultKey: Uint8Array },
  createdAtMs: number,
  files: Record<string, string>,
): Promise<Buffer> {
  const entries = Object.entries(files).map(([path, text]) => {
    const bytes = Buffer.from(text)
    return { identity: { path, size: bytes.length, writtenAtMs: createdAtMs }, content: () => [bytes] }
  })
  return Buffer.from(
    await collectBytes(
      encryptBundleStream(entries, { vaultKey: vault.vaultKey, vaultId: vault.vaultId, createdAtMs }),
    ),
  )
}

export function assetId(): string {
  return `ast_${randomBytes(12).toString('base64url')}`
}

/** A vault manifest blob: the files the owner's app listed as current at `writtenAtMs`. */
export async function manifestBlob(
  vault: { vaultId: string; vaultKey: Uint8Array },
  sequence: number,
  writtenAtMs: number,
  files: { path: string; text: string; writtenAtMs: number }[],
): Promise<Buffer> {
  const entries = files
    .map((f) => ({
      path: f.path,
      size: Buffer.byteLength(f.text),
      sha256: createHash('sha256').update(f.text).digest('hex'),
      writtenAtMs: f.writtenAtMs,
    }))
    .sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)))
  return Buffer.from(await encryptManifest({ sequence, writtenAtMs, entries }, vault))
}
