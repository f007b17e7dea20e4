// The measured side of bench/owner-download.ts, run bundled as a Node process of its own per run (as
// the app's main process runs bundled), so its CPU and peak RSS are that one run's alone. One run:
//   plain  the blob downloaded with the app's service client and piped to a file, nothing else;
//   save   saveVaultFiles(): the same download, its encrypted bytes kept in a `.part` for resume,
//          decrypted in a stream through the recovery writer into the file.
// Prints one JSON line (OwnerDownloadRun). The API key and the vault key come in the environment.
import { createWriteStream, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { type BlobToSave, saveVaultFiles } from '../src/main/core/vaults/file-save'
import { VaultApiClient } from '../src/service-client'
import { type MeasuredRun, measureRun } from './measured-run'

export type DownloadMode = 'plain' | 'save'
export interface OwnerDownloadRun extends MeasuredRun {
  mode: DownloadMode
  /** The file written (for the parent to check). */
  output: string
}

const args = process.argv.slice(2)
const apiKey = process.env.VAULT_BENCH_API_KEY
const [mode, url, vaultId, folder, blobsFile] = args as [DownloadMode, string, string, string, string]
if (!apiKey || args.length !== 5 || (mode !== 'plain' && mode !== 'save')) {
  console.error(
    'usage: VAULT_BENCH_API_KEY=... [VAULT_BENCH_VAULT_KEY=<hex>] owner-download-client <plain|save> <url> <vaultId> <folder> <blobs.json>',
  )
  process.exit(2)
}
const blobs = JSON.parse(readFileSync(blobsFile, 'utf8')) as BlobToSave[]
if (blobs.length !== 1 || blobs[0]!.files.length !== 1) {
  console.error('the benchmark expects one blob holding one file')
  process.exit(2)
}
const blob = blobs[0]!

const client = new VaultApiClient({ baseUrl: url, apiKey, timeoutMs: 120_000 })
await client.listVaults()

async function plain(): Promise<string> {
  const output = join(folder, 'plain.bin')
  const { stream } = await client.downloadAssetFrom(vaultId, blob.assetId, 0)
  await pipeline(stream, createWriteStream(output, { highWaterMark: 1 << 20 }))
  return output
}

async function save(): Promise<string> {
  const hex = process.env.VAULT_BENCH_VAULT_KEY
  if (!hex || !/^[0-9a-f]{64}$/.test(hex)) throw new Error('VAULT_BENCH_VAULT_KEY (64 hex digits) is missing')
  const outcome = await saveVaultFiles({
    source: client,
    vaultId,
    vaultKey: new Uint8Array(Buffer.from(hex, 'hex')),
    folder,
    blobs,
  })
  if (outcome.saved !== 1 || outcome.failed.length > 0 || outcome.stopped) {
    throw new Error(`the save did not write the file: ${JSON.stringify(outcome)}`)
  }
  return join(folder, blob.files[0]!.saveAs)
}

const measured = await measureRun(() => (mode === 'plain' ? plain() : save()))
const { value: output, ...figures } = measured
const run: OwnerDownloadRun = { mode, ...figures, output }
console.log(JSON.stringify(run))
process.exit(0)
