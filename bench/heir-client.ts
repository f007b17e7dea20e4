// The measured side of bench/heir-recovery.ts: the heir's tool, bundled, in a Node process of its own
// (the service runs in the parent), so its CPU and peak RSS are the heir's alone. One run:
//   plain    the released blob downloaded with the heir's access code and piped to a file;
//   recover  recoverFromService(): the same download, checked and decrypted into the file.
//   floor    the same download with the least work any recovery of it has to do: AES-256-GCM over
//            every 16 KiB chunk (the recovery's AES-GCM: node:crypto's, or the native one with
//            VAULT_BENCH_BACKEND=native), SHA-256 over
//            the result and one write of it, on one thread. It checks nothing and keeps nothing to
//            resume from: a bound on what the recover mode can reach on this machine while its work
//            stays on one thread, not a way to recover.
// Prints one JSON line (HeirRun). The access code and the vault key come in the environment, and
// VAULT_BENCH_BACKEND=native recovers as the app's Recovery screen does (the tool's is node:crypto).
import { createCipheriv, createHash, createSecretKey, randomBytes } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { nativeAeadBackend, nativeAeadStatus } from '../src/node-cipher/aead-native'
import { letHeapGrowForDownloads } from '../src/recovery/heap-growth'
import { recoverFromService } from '../src/recovery/heir-recovery'
import { VaultApiClient } from '../src/service-client'
import type { AeadBackend } from '../src/vault-format/batch-api'
import { type MeasuredRun, measureRun } from './measured-run'

export type HeirMode = 'plain' | 'recover' | 'floor'
const MODES: readonly string[] = ['plain', 'recover', 'floor'] satisfies HeirMode[]
export interface HeirRun extends MeasuredRun {
  mode: HeirMode
  /** The file written (for the parent to check). */
  output: string
}

const args = process.argv.slice(2)
const token = process.env.VAULT_BENCH_HEIR_TOKEN
const [mode, url, vaultId, assetId, folder, name] = args as [HeirMode, string, string, string, string, string]
if (!token || args.length !== 6 || !MODES.includes(mode)) {
  console.error(
    'usage: VAULT_BENCH_HEIR_TOKEN=... [VAULT_BENCH_VAULT_KEY=<hex>] heir-client <plain|recover|floor> <url> <vaultId> <assetId> <folder> <file name>',
  )
  process.exit(2)
}

// Both modes run as the heir's tool does (cli.ts), so the plain download gets the same heap.
letHeapGrowForDownloads()

async function plain(): Promise<string> {
  // Heir codes cannot list vaults, the client's way to find the prefix: it is given, as the tool does.
  const client = new VaultApiClient({ baseUrl: url, apiKey: token!, prefix: '/api', timeoutMs: 120_000 })
  const output = join(folder, 'plain.bin')
  const { stream } = await client.downloadAssetFrom(vaultId, assetId, 0)
  await pipeline(stream, createWriteStream(output, { highWaterMark: 1 << 20 }))
  return output
}

/** The format's chunk (vault-format's CHUNK_SIZE), not imported: this mode knows nothing of the format. */
const CHUNK = 16 * 1024

async function floor(): Promise<string> {
  const client = new VaultApiClient({ baseUrl: url, apiKey: token!, prefix: '/api', timeoutMs: 120_000 })
  const output = join(folder, 'floor.bin')
  const { stream } = await client.downloadAssetFrom(vaultId, assetId, 0)
  const hash = createHash('sha256')
  await pipeline(
    stream,
    backend === 'native' ? nativeChunkPass(nativeAeadBackend()!) : nodeChunkPass(),
    async function* (pieces: AsyncIterable<Uint8Array>) {
      for await (const piece of pieces) {
        hash.update(piece)
        yield piece
      }
    },
    createWriteStream(output, { highWaterMark: 1 << 20 }),
  )
  hash.digest()
  return output
}

/** AES-256-GCM over each chunk with node:crypto, as the tool's cipher: an object per chunk. */
function nodeChunkPass() {
  const key = createSecretKey(randomBytes(32))
  const nonce = Buffer.alloc(12)
  let chunk = 0
  return async function* (pieces: AsyncIterable<Buffer>) {
    for await (const piece of pieces) {
      for (let at = 0; at < piece.length; at += CHUNK) {
        nonce.writeUInt32BE(chunk++, 8)
        const cipher = createCipheriv('aes-256-gcm', key, nonce)
        const out = cipher.update(piece.subarray(at, at + CHUNK))
        cipher.final()
        cipher.getAuthTag()
        yield out
      }
    }
  }
}

/** The same with the native AES-GCM, as the app's Recovery screen: each piece's chunks into one buffer. */
function nativeChunkPass(native: AeadBackend) {
  const aead = native.create(randomBytes(32), randomBytes(12))
  let chunk = 0
  return async function* (pieces: AsyncIterable<Buffer>) {
    for await (const piece of pieces) {
      const chunks = Math.ceil(piece.length / CHUNK)
      const out = Buffer.allocUnsafeSlow(piece.length + chunks * 16)
      for (let i = 0, at = 0; at < piece.length; i++, at += CHUNK) {
        aead.sealInto(chunk++, piece.subarray(at, at + CHUNK), out, at + i * 16)
      }
      yield out
    }
  }
}

const backend = process.env.VAULT_BENCH_BACKEND === 'native' ? 'native' : 'node'
if (backend === 'native' && !nativeAeadBackend()) throw new Error(nativeAeadStatus().why)

async function recover(): Promise<string> {
  const hex = process.env.VAULT_BENCH_VAULT_KEY
  if (!hex || !/^[0-9a-f]{64}$/.test(hex)) throw new Error('VAULT_BENCH_VAULT_KEY (64 hex digits) is missing')
  const report = await recoverFromService({
    serviceUrl: url,
    accessToken: token!,
    vaultId,
    vaultKey: new Uint8Array(Buffer.from(hex, 'hex')),
    outDir: folder,
    timeoutMs: 120_000,
    backend,
  })
  if (report.stopped || report.results.filter((r) => r.status === 'recovered').length !== 1) {
    throw new Error(`the recovery did not write the file: ${JSON.stringify(report)}`)
  }
  return join(folder, name)
}

const { value: output, ...figures } = await measureRun(() =>
  mode === 'plain' ? plain() : mode === 'floor' ? floor() : recover(),
)
const run: HeirRun = { mode, ...figures, output }
console.log(JSON.stringify(run))
process.exit(0)
