// "Export an encrypted copy": the vault's blobs as .vault files plus the heirs' documents and tool, into
// an empty folder; the command-line recovery tool, given only that folder and two guardians' words,
// brings back every file byte for byte. A blob the service sends short, or a folder already in use,
// leaves nothing behind.
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  EXPORT_BLOBS_FOLDER,
  EXPORT_README,
  exportEncryptedCopy,
  exportNames,
  findRecoveryMaterials,
} from '../../src/main/core/vaults/encrypted-export'
import { VaultApiClient } from '../../src/service-client'
import type { Asset } from '../../src/shared/api'
import { SSS_PRESET_SHAPE } from '../../src/shared/api'
import {
  collectBytes,
  encodeShareWords,
  encryptBundleStream,
  encryptedLength,
  encryptManifest,
  encryptStream,
  generateVaultKey,
  splitVaultKey,
} from '../../src/vault-format'
import { call, startTestService, type TestService, uploadForm } from '../service/harness'

const run = promisify(execFile)
const vaultKey = generateVaultKey()
let t: TestService
let vaultId: string
let work: string
let client: VaultApiClient
const originals: Record<string, Buffer> = {
  'letters/will.txt': Buffer.from('the final will'),
  'letters/wishes.txt': Buffer.from('no lilies, please'),
  // Several chunks, so a short copy would show.
  'photos/house.jpg': Buffer.alloc(200_000, 9),
}
const materials = () => ({
  recoveryGuide: join(process.cwd(), 'docs/RECOVERY.md'),
  formatSpec: join(process.cwd(), 'docs/FORMAT.md'),
})

async function upload(name: string, blob: Buffer): Promise<void> {
  const reply = await call(t.url, 'POST', `/api/vault/${vaultId}/asset`, {
    key: t.owner.apiKey,
    body: uploadForm(blob, { filename: name }),
  })
  expect(reply.status).toBe(201)
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort()
}

beforeAll(async () => {
  t = await startTestService()
  vaultId = t.owner.vaultId
  await t.service.admin.addCredits({ account: t.owner.accountId, credits: 1000 })
  work = await mkdtemp(join(tmpdir(), 'vault-export-'))
  const createdAtMs = t.now().getTime()
  const letters = Object.entries(originals)
    .filter(([path]) => path.startsWith('letters/'))
    .map(([path, bytes]) => ({
      identity: { path, size: bytes.length, writtenAtMs: createdAtMs },
      content: () => [bytes],
    }))
  // The vault's list of files rides in the bundle, as the app writes it: recovery checks against it.
  const manifest = await encryptManifest(
    {
      sequence: 1,
      writtenAtMs: createdAtMs,
      entries: Object.entries(originals).map(([path, bytes]) => ({
        path,
        size: bytes.length,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        writtenAtMs: createdAtMs,
      })),
    },
    { vaultKey, vaultId },
  )
  await upload(
    'bundle.vault',
    Buffer.from(
      await collectBytes(encryptBundleStream(letters, { vaultKey, vaultId, createdAtMs, manifest })),
    ),
  )
  const photo = originals['photos/house.jpg']!
  await upload(
    'photo.vault',
    Buffer.from(
      await collectBytes(
        encryptStream([photo], {
          vaultKey,
          vaultId,
          identity: { path: 'photos/house.jpg', size: photo.length, writtenAtMs: createdAtMs },
        }),
      ),
    ),
  )
  client = new VaultApiClient({ baseUrl: t.url, apiKey: t.owner.apiKey })
})

afterAll(async () => {
  await t?.stop()
  if (work) await rm(work, { recursive: true, force: true })
})

describe('export an encrypted copy', () => {
  it('writes every blob and the heirs’ documents; the CLI recovers the folder with two guardians’ words', async () => {
    const folder = join(work, 'usb-stick')
    const progress: number[] = []
    const result = await exportEncryptedCopy({
      source: client,
      vaultId,
      vaultName: 'Family',
      folder,
      materials: materials(),
      onProgress: (p) => progress.push(p.doneBytes),
    })
    const assets = await client.listAllAssets(vaultId)
    expect(result.blobCount).toBe(2)
    expect(result.bytes).toBe(assets.reduce((sum, a) => sum + a.sizeBytes, 0))
    expect(progress.at(-1)).toBe(result.bytes)
    // No recovery page or tool given: the README says what to get and where.
    expect(result.missing).toEqual(['recovery-page', 'recovery-tool'])
    expect(await filesUnder(folder)).toEqual(
      [
        'FORMAT.md',
        'RECOVERY.md',
        EXPORT_README,
        ...assets.map((a) => `${EXPORT_BLOBS_FOLDER}/${a.id}.vault`),
      ].sort(),
    )
    const readme = await readFile(join(folder, EXPORT_README), 'utf8')
    expect(readme).toContain('I have the encrypted files')
    expect(readme).toContain('npm run pack:recovery')
    expect(readme).toContain('npm run build:recovery-page')
    expect(readme).not.toContain('With only a web browser')
    // The blobs are the service's bytes, never decrypted.
    for (const asset of assets) {
      const served = Buffer.from(await collectBytes(await client.downloadAsset(vaultId, asset.id)))
      expect((await readFile(join(folder, EXPORT_BLOBS_FOLDER, `${asset.id}.vault`))).equals(served)).toBe(
        true,
      )
    }

    const shares = await splitVaultKey(vaultKey, vaultId, SSS_PRESET_SHAPE.standard)
    const out = join(work, 'recovered')
    const { stderr } = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/recovery/cli.ts',
        '--share-words',
        encodeShareWords(shares[0]!),
        '--share-words',
        encodeShareWords(shares[2]!),
        '--out',
        out,
        folder,
      ],
      { timeout: 60_000 },
    )
    expect(stderr).not.toContain('failed')
    expect(await filesUnder(out)).toEqual(Object.keys(originals).sort())
    for (const [path, bytes] of Object.entries(originals)) {
      expect((await readFile(join(out, path))).equals(bytes), path).toBe(true)
    }
  }, 90_000)

  it('refuses a folder that is not empty, and touches nothing in it', async () => {
    const taken = join(work, 'in-use')
    await mkdir(taken)
    await writeFile(join(taken, 'photo.jpg'), 'mine')
    await expect(
      exportEncryptedCopy({ source: client, vaultId, vaultName: 'Family', folder: taken, materials: {} }),
    ).rejects.toMatchObject({ code: 'EXPORT_FOLDER_IN_USE' })
    expect(await readdir(taken)).toEqual(['photo.jpg'])
  })

  it('a blob the service sends short fails the export and leaves no folder behind', async () => {
    const folder = join(work, 'short')
    const short = {
      listAllAssets: (id: string) => client.listAllAssets(id),
      downloadAsset: async (id: string, assetId: string) =>
        Readable.from([
          Buffer.from(await collectBytes(await client.downloadAsset(id, assetId))).subarray(0, 1000),
        ]),
    }
    await expect(
      exportEncryptedCopy({ source: short, vaultId, vaultName: 'Family', folder, materials: materials() }),
    ).rejects.toMatchObject({ code: 'EXPORT_BLOB_DAMAGED' })
    await expect(readdir(folder)).rejects.toMatchObject({ code: 'ENOENT' })
  })

  it('names: a storage id that is not a plain name, or one that a case-folding disk would merge, gets a made name', () => {
    const asset = (id: string) => ({ id }) as Asset
    const names = exportNames('v1', [asset('abc'), asset('ABC'), asset('../../etc'), asset('con')])
    expect(names[0]).toBe('abc.vault')
    expect(names[1]).toMatch(/^[0-9a-f]{24}\.vault$/)
    expect(names[2]).toMatch(/^[0-9a-f]{24}\.vault$/)
    expect(names[3]).toMatch(/^[0-9a-f]{24}\.vault$/)
    expect(new Set(names).size).toBe(4)
  })

  it('finds the docs, the recovery page and the packed tool upward from where the app runs', async () => {
    const root = join(work, 'app')
    await mkdir(join(root, 'docs'), { recursive: true })
    await mkdir(join(root, 'out/recovery-package'), { recursive: true })
    await mkdir(join(root, 'out/recovery-page'), { recursive: true })
    await mkdir(join(root, 'out/main'), { recursive: true })
    await writeFile(
      join(root, 'docs/RECOVERY.md'),
      "# Recovery\nThe SHA-256 of this version's page: <!-- recovery-page-sha256 -->**see the copy beside the page**<!-- /recovery-page-sha256 -->.\n",
    )
    await writeFile(join(root, 'docs/FORMAT.md'), '# Format')
    await writeFile(join(root, 'out/recovery-package/vault-recover-1.2.3.tgz'), 'tool')
    await writeFile(join(root, 'out/recovery-page/vault-recovery.html'), '<!doctype html>the page')
    const pageSha256 = createHash('sha256').update('<!doctype html>the page').digest('hex')
    expect(await findRecoveryMaterials([join(root, 'out/main')])).toEqual({
      recoveryGuide: join(root, 'docs/RECOVERY.md'),
      formatSpec: join(root, 'docs/FORMAT.md'),
      recoveryTool: join(root, 'out/recovery-package/vault-recover-1.2.3.tgz'),
      recoveryPage: { path: join(root, 'out/recovery-page/vault-recovery.html'), sha256: pageSha256 },
    })
    const folder = join(work, 'with-tool')
    const result = await exportEncryptedCopy({
      source: client,
      vaultId,
      vaultName: 'Family',
      folder,
      materials: await findRecoveryMaterials([join(root, 'out/main')]),
    })
    expect(result.missing).toEqual([])
    expect(await readFile(join(folder, 'vault-recover-1.2.3.tgz'), 'utf8')).toBe('tool')
    const readme = await readFile(join(folder, EXPORT_README), 'utf8')
    expect(readme).toContain('npx ./vault-recover-1.2.3.tgz')
    // An heir with only a browser: the page beside the files, and the value to check it against.
    expect(await readFile(join(folder, 'vault-recovery.html'), 'utf8')).toBe('<!doctype html>the page')
    expect(await readFile(join(folder, 'vault-recovery.html.sha256'), 'utf8')).toBe(
      `${pageSha256}  vault-recovery.html\n`,
    )
    expect(readme).toContain('With only a web browser')
    expect(readme).toContain(pageSha256)
    // The guide in the folder names the page's SHA-256, as the tool's packed copy does.
    const guide = await readFile(join(folder, 'RECOVERY.md'), 'utf8')
    expect(guide).toContain(`page: \`${pageSha256}\`.`)
    expect(guide).not.toContain('recovery-page-sha256')
  })

  it('streams: a 512 MiB blob goes to the disk with memory flat', async () => {
    const size = encryptedLength(512 * 1024 * 1024)
    const block = Buffer.alloc(1024 * 1024, 0x3c)
    const big = {
      listAllAssets: async () => [{ id: 'ast_big', sizeBytes: size } as Asset],
      downloadAsset: async () =>
        Readable.from(
          (function* () {
            for (let left = size; left > 0; left -= block.length)
              yield block.subarray(0, Math.min(left, block.length))
          })(),
        ),
    }
    const before = process.memoryUsage().rss
    let peak = before
    const folder = join(work, 'big')
    const result = await exportEncryptedCopy({
      source: big,
      vaultId,
      vaultName: 'Family',
      folder,
      materials: {},
      onProgress: () => {
        peak = Math.max(peak, process.memoryUsage().rss)
      },
    })
    expect(result.bytes).toBe(size)
    expect((await stat(join(folder, EXPORT_BLOBS_FOLDER, 'ast_big.vault'))).size).toBe(size)
    // Buffering the blob would add its 512 MiB; streaming keeps to a few buffers.
    expect(peak - before).toBeLessThan(96 * 1024 * 1024)
    await rm(folder, { recursive: true, force: true })
  }, 60_000)
})
