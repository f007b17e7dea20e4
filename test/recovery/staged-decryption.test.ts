// An heir's file decrypted while it downloads (src/recovery/staged-decryption.ts), then linked into
// place by the writer instead of decrypted a second time (issue 31, point 3). A staged file exists only
// when every chunk authenticated, the end included; anything else leaves nothing behind and the later
// pass does the work. The writer holds a staged file to the same checks as a decrypted one.
import { createHash, randomBytes } from 'node:crypto'
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { RecoveryWriteError, writeRecoveredBlob } from '../../src/recovery/recovery-writer'
import { StagedDecryption, type StagedPlaintext } from '../../src/recovery/staged-decryption'
import {
  CHUNK_SIZE,
  collectBytes,
  encryptBundleStream,
  encryptManifest,
  encryptStream,
  generateVaultKey,
  HEADER_SIZE,
} from '../../src/vault-format'

const vaultId = 'staged-decryption-test'
const vaultKey = generateVaultKey()
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vault-staged-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

async function fileBlob(path: string, content: Uint8Array): Promise<Buffer> {
  const identity = { path, size: content.length, writtenAtMs: Date.parse('2031-05-01T09:00:00Z') }
  return Buffer.from(await collectBytes(encryptStream([content], { vaultKey, vaultId, identity })))
}

/** The blob pushed as a download would arrive: pieces of odd sizes, in order. */
async function stage(blob: Uint8Array, path = join(dir, 'x.plain'), cutAt = blob.length) {
  const staging = new StagedDecryption({ path, vaultKey, vaultId })
  for (let at = 0; at < cutAt; at += 65_537)
    await staging.push(blob.subarray(at, Math.min(at + 65_537, cutAt)))
  return { staging, path }
}

describe('StagedDecryption', () => {
  it('stages the whole file, its SHA-256 and size, from a blob pushed piece by piece', async () => {
    const content = randomBytes(5 * CHUNK_SIZE + 1234)
    const { staging, path } = await stage(await fileBlob('docs/a.bin', content))
    const staged = await staging.finish()
    expect(staged).toEqual({ path, sha256: sha256(content), bytes: content.length })
    expect((await readFile(path)).equals(content)).toBe(true)
  })

  it('leaves nothing when a chunk in the middle does not authenticate', async () => {
    const blob = await fileBlob('a.bin', randomBytes(4 * CHUNK_SIZE))
    blob[HEADER_SIZE + 2 * CHUNK_SIZE + 7]! ^= 1
    const { staging } = await stage(blob)
    expect(await staging.finish()).toBeNull()
    expect(await readdir(dir)).toEqual([])
  })

  it('leaves nothing for a download cut short, even at a chunk boundary', async () => {
    const blob = await fileBlob('a.bin', randomBytes(4 * CHUNK_SIZE + 10))
    const { staging } = await stage(blob, undefined, blob.length - 30)
    expect(await staging.finish()).toBeNull()
    expect(await readdir(dir)).toEqual([])
  })

  it('leaves nothing when the download fails part-way (abandon)', async () => {
    const blob = await fileBlob('a.bin', randomBytes(6 * CHUNK_SIZE))
    const { staging } = await stage(blob, undefined, 3 * CHUNK_SIZE)
    await staging.abandon()
    expect(await staging.finish()).toBeNull()
    expect(await readdir(dir)).toEqual([])
  })

  it('stages nothing for a bundle or a manifest, and takes the rest of the download at once', async () => {
    const bundle = Buffer.from(
      await collectBytes(
        encryptBundleStream(
          [{ identity: { path: 'b.txt', size: 2, writtenAtMs: 1 }, content: () => [Buffer.from('hi')] }],
          { vaultKey, vaultId, createdAtMs: 1 },
        ),
      ),
    )
    const manifest = await encryptManifest(
      { sequence: 1, writtenAtMs: 1, entries: [] },
      { vaultKey, vaultId },
    )
    for (const blob of [bundle, manifest]) {
      const { staging } = await stage(blob)
      expect(await staging.finish()).toBeNull()
    }
    expect(await readdir(dir)).toEqual([])
  })

  it('never opens a file that is already there (a run stopped earlier, or a link)', async () => {
    const path = join(dir, 'x.plain')
    await writeFile(path, 'left by another run')
    const { staging } = await stage(await fileBlob('a.bin', randomBytes(100)), path)
    expect(await staging.finish()).toBeNull()
  })
})

describe('writeRecoveredBlob with a staged file', () => {
  async function setUp(content: Uint8Array) {
    const input = join(dir, 'blob.part')
    const blob = await fileBlob('docs/report.pdf', content)
    await writeFile(input, blob)
    const { staging } = await stage(blob, join(dir, 'blob.plain'))
    const staged = (await staging.finish()) as StagedPlaintext
    const outDir = join(dir, 'out')
    /** The blob written with its staged file, as the vault list naming `expectSha256` asks. */
    const write = (expectSha256: string) =>
      writeRecoveredBlob({
        input,
        outDir,
        fallbackPath: 'x',
        vaultKey,
        vaultId,
        staged,
        select: () => ({ expectSha256 }),
      })
    return { input, staged, outDir, write }
  }

  it('links the staged file into place (the same inode), with the same result as decrypting again', async () => {
    const content = randomBytes(3 * CHUNK_SIZE + 5)
    const { staged, outDir, write } = await setUp(content)
    const inode = (await stat(staged.path)).ino
    const blob = await write(sha256(content))
    expect(blob).toMatchObject({ kind: 'file', file: { status: 'recovered', bytes: content.length } })
    const output = join(outDir, 'docs', 'report.pdf')
    expect((await stat(output)).ino).toBe(inode)
    expect((await readFile(output)).equals(content)).toBe(true)
    // The staged name is gone, and no temp file is left beside the output.
    await expect(stat(staged.path)).rejects.toThrow()
    expect(await readdir(join(outDir, 'docs'))).toEqual(['report.pdf'])
  })

  it('refuses a staged file whose content is not the one the vault list names, writing nothing', async () => {
    const content = randomBytes(CHUNK_SIZE)
    const { outDir, write } = await setUp(content)
    const error = await write(sha256(Buffer.from('another version'))).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RecoveryWriteError)
    expect((error as RecoveryWriteError).reason).toBe('other-content')
    // Not even the folder it made for it, nor a temp file.
    expect(await readdir(outDir).catch(() => [])).toEqual([])
  })

  it('counts an identical file already in place as kept, and leaves a different one untouched', async () => {
    const content = randomBytes(CHUNK_SIZE + 1)
    const first = await setUp(content)
    const output = join(first.outDir, 'docs', 'report.pdf')
    const options = { input: first.input, outDir: first.outDir, fallbackPath: 'x', vaultKey, vaultId }
    await writeRecoveredBlob({ ...options, staged: first.staged })
    const again = (await (
      await stage(await readFile(first.input), join(dir, 'again.plain'))
    ).staging.finish())!
    expect(await writeRecoveredBlob({ ...options, staged: again })).toMatchObject({
      file: { status: 'kept' },
    })

    await writeFile(output, 'the heir’s own file')
    const third = (await (
      await stage(await readFile(first.input), join(dir, 'third.plain'))
    ).staging.finish())!
    const error = await writeRecoveredBlob({ ...options, staged: third }).catch((e: unknown) => e)
    expect((error as RecoveryWriteError).reason).toBe('exists')
    expect(await readFile(output, 'utf8')).toBe('the heir’s own file')
  })
})
