// Recovery takes the newest copy as the blobs authenticate it (issue 26, point 3): the vault manifest
// with the highest sequence number decides which files and which copies are recovered, a listed file
// without a copy is named missing, copies older or newer than the list are reported; without a
// manifest, the write time sealed in each copy decides (never a service's or a gateway's date, nor
// the order the files come in), and the report says no manifest was found.
import { createHash } from 'node:crypto'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { manifestNote, recoverRun, runProblems } from '../../src/recovery/recover-files'
import {
  collectBytes,
  encryptBundleStream,
  encryptManifest,
  encryptStream,
  generateVaultKey,
  type ManifestEntry,
} from '../../src/vault-format'
import { encryptStreamV1 } from '../crypto/support/legacy-v1'
import { encryptBlobV2 } from '../crypto/support/legacy-writers'

const vaultId = 'manifest-recovery-test'
const vaultKey = generateVaultKey()
const day = 86_400_000
const t0 = Date.parse('2031-05-01T09:00:00Z')

const sha = (text: string) => createHash('sha256').update(text).digest('hex')

async function single(path: string, text: string, writtenAtMs: number): Promise<Buffer> {
  const bytes = Buffer.from(text)
  return Buffer.from(
    await collectBytes(
      encryptStream([bytes], { vaultKey, vaultId, identity: { path, size: bytes.length, writtenAtMs } }),
    ),
  )
}

async function bundle(
  files: Record<string, string>,
  createdAtMs: number,
  manifest?: { sequence: number; entries: ManifestEntry[] },
): Promise<Buffer> {
  const entries = Object.entries(files).map(([path, text]) => {
    const bytes = Buffer.from(text)
    return { identity: { path, size: bytes.length, writtenAtMs: createdAtMs }, content: () => [bytes] }
  })
  const embedded = manifest
    ? await encryptManifest({ ...manifest, writtenAtMs: createdAtMs }, { vaultKey, vaultId })
    : undefined
  return Buffer.from(
    await collectBytes(
      encryptBundleStream(entries, {
        vaultKey,
        vaultId,
        createdAtMs,
        ...(embedded ? { manifest: embedded } : {}),
      }),
    ),
  )
}

function entry(path: string, text: string, writtenAtMs: number): ManifestEntry {
  return { path, size: Buffer.byteLength(text), sha256: sha(text), writtenAtMs }
}

let dir: string
let inDir: string
let outDir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vault-manifest-'))
  inDir = join(dir, 'in')
  outDir = join(dir, 'out')
  await mkdir(inDir)
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const put = (name: string, blob: Uint8Array) => writeFile(join(inDir, name), blob)
const read = (path: string) => readFile(join(outDir, path), 'utf8')
const rows = (results: { input: string; entry?: string; status: string }[]) =>
  results.map((r) => [r.input ? r.input.slice(inDir.length + 1) : '', r.entry ?? '', r.status])

describe('without a manifest', () => {
  it('a newer single-file blob wins over an older bundle copy, whatever the order; undated copies count as older', async () => {
    // Named so that the oldest copies sort first: the order given must not matter.
    await put('a-bundle.vault', await bundle({ 'will.txt': 'draft in a bundle', 'other.txt': 'x' }, t0 + day))
    await put('b-final.vault', await single('will.txt', 'the final will', t0 + 2 * day))
    await put(
      '0-undated.vault',
      await encryptBlobV2(Buffer.from('an undated old copy'), { vaultKey, vaultId, path: 'will.txt' }),
    )
    const run = await recoverRun({ vaultKey, vaultId, inputs: [inDir], outDir })
    expect(await read('will.txt')).toBe('the final will')
    expect(await read('other.txt')).toBe('x')
    expect(rows(run.results)).toEqual([
      ['b-final.vault', '', 'recovered'],
      ['a-bundle.vault', 'other.txt', 'recovered'],
      ['0-undated.vault', '', 'superseded'],
      ['a-bundle.vault', 'will.txt', 'superseded'],
    ])
    expect(run.results[2]!.message).toMatch(/Copies without a date inside were taken in the order given/)
    expect(run.results[3]!.message).toMatch(
      /A newer copy of this file \(in b-final\.vault, written 2031-05-03 09:00 UTC\)/,
    )
    expect(run.manifest).toBeNull()
    expect(manifestNote(run)).toMatch(/^No list of the vault's files \(manifest\) was found/)
  })

  it("undated copies in a folder: the first in byte order of the names wins, whatever the machine's language", async () => {
    const undated = (text: string) =>
      encryptBlobV2(Buffer.from(text), { vaultKey, vaultId, path: 'will.txt' })
    // Byte order (FORMAT.md 3.11): "Z" (0x5A) < "a" (0x61) < "é" (0xC3 0xA9); a language's order differs.
    await put('a.vault', await undated('a draft will'))
    await put('é.vault', await undated('another draft'))
    await put('Z.vault', await undated('the chosen will'))
    const run = await recoverRun({ vaultKey, vaultId, inputs: [inDir], outDir })
    expect(await read('will.txt')).toBe('the chosen will')
    expect(rows(run.results)).toEqual([
      ['Z.vault', '', 'recovered'],
      ['a.vault', '', 'superseded'],
      ['é.vault', '', 'superseded'],
    ])
  })
})

describe('with a manifest', () => {
  it('recovers exactly the listed files, by the highest sequence number, and reports the copies around it', async () => {
    // Sequence 1 (older): lists will.txt (draft) and old.txt.
    await put(
      'm1.vault',
      await bundle({ 'will.txt': 'draft', 'old.txt': 'deleted later' }, t0, {
        sequence: 1,
        entries: [entry('will.txt', 'draft', t0), entry('old.txt', 'deleted later', t0)],
      }),
    )
    // Sequence 2: will.txt (final) and notes.txt; old.txt was deleted.
    await put('m2-will.vault', await single('will.txt', 'final', t0 + day))
    await put('m2-notes.vault', await single('notes.txt', 'notes', t0 + day))
    await put(
      'm2.vault',
      await encryptManifest(
        {
          sequence: 2,
          writtenAtMs: t0 + day + 1000,
          entries: [entry('will.txt', 'final', t0 + day), entry('notes.txt', 'notes', t0 + day)],
        },
        { vaultKey, vaultId },
      ),
    )
    // Written after the list: not in it.
    await put('later.vault', await single('later.txt', 'after the list', t0 + 3 * day))
    const run = await recoverRun({ vaultKey, vaultId, inputs: [inDir], outDir })
    expect(run.manifest).toMatchObject({ sequence: 2, listed: 2, older: 1 })
    expect(manifestNote(run)).toMatch(
      /newest list of files: number 2, written 2031-05-02 09:00 UTC, naming 2 file\(s\)/,
    )
    expect(await read('will.txt')).toBe('final')
    expect(await read('notes.txt')).toBe('notes')
    expect((await readdir(outDir)).sort()).toEqual(['notes.txt', 'will.txt'])
    const byEntry = (name: string, entryPath = '') =>
      run.results.find((r) => r.input.endsWith(name) && (r.entry ?? '') === entryPath)!
    expect(byEntry('m1.vault', 'old.txt')).toMatchObject({ status: 'superseded' })
    expect(byEntry('m1.vault', 'old.txt').message).toMatch(
      /does not name it, so the owner removed or replaced it/,
    )
    expect(byEntry('m1.vault', 'will.txt')).toMatchObject({ status: 'superseded' })
    expect(byEntry('later.vault')).toMatchObject({ status: 'newer' })
    expect(byEntry('later.vault').message).toMatch(/after the vault's newest list of files/)
  })

  it('names a listed file whose blob is missing, and recovers the rest', async () => {
    await put('will.vault', await single('will.txt', 'final', t0))
    await put(
      'manifest.vault',
      await encryptManifest(
        {
          sequence: 7,
          writtenAtMs: t0 + 1,
          entries: [entry('will.txt', 'final', t0), entry('letters/to-ana.txt', 'dear Ana', t0)],
        },
        { vaultKey, vaultId },
      ),
    )
    const run = await recoverRun({ vaultKey, vaultId, inputs: [inDir], outDir })
    expect(await read('will.txt')).toBe('final')
    const missing = run.results.filter((r) => r.status === 'missing')
    expect(missing).toHaveLength(1)
    expect(missing[0]).toMatchObject({
      entry: 'letters/to-ana.txt',
      output: join(outDir, 'letters/to-ana.txt'),
    })
    expect(missing[0]!.message).toMatch(
      /^Missing: the vault's newest list of files \(number 7\) names this file \(8 bytes/,
    )
  })

  it('matches an undated copy by its content SHA-256, and never takes a copy with other content for the listed one', async () => {
    // Two format-2 copies of one path, same size, different content: only the hash tells them apart.
    await put(
      '1.vault',
      await encryptBlobV2(Buffer.from('version A'), { vaultKey, vaultId, path: 'doc.txt' }),
    )
    await put(
      '2.vault',
      await encryptBlobV2(Buffer.from('version B'), { vaultKey, vaultId, path: 'doc.txt' }),
    )
    await put(
      'manifest.vault',
      await encryptManifest(
        { sequence: 1, writtenAtMs: t0, entries: [entry('doc.txt', 'version B', t0 - day)] },
        { vaultKey, vaultId },
      ),
    )
    const run = await recoverRun({ vaultKey, vaultId, inputs: [inDir], outDir })
    expect(await read('doc.txt')).toBe('version B')
    expect(rows(run.results)).toEqual([
      ['2.vault', '', 'recovered'],
      ['1.vault', '', 'superseded'],
    ])
    expect(run.results[1]!.message).toMatch(
      /An older copy: the version the vault's newest list of files names \(in 2\.vault\) was recovered/,
    )
    expect(await readdir(outDir)).toEqual(['doc.txt'])
  })

  it('a format-1 copy (no name inside) fulfils an entry by size and SHA-256, and is written at its path', async () => {
    await put(
      'scan-from-2019.vault',
      await collectBytes(encryptStreamV1([Buffer.from('the old scan')], { vaultKey, vaultId })),
    )
    await put(
      'manifest.vault',
      await encryptManifest(
        { sequence: 1, writtenAtMs: t0, entries: [entry('photos/scan.jpg', 'the old scan', t0 - day)] },
        { vaultKey, vaultId },
      ),
    )
    const run = await recoverRun({ vaultKey, vaultId, inputs: [inDir], outDir })
    expect(await read('photos/scan.jpg')).toBe('the old scan')
    expect(rows(run.results)).toEqual([['scan-from-2019.vault', '', 'recovered']])
    expect(await readdir(outDir)).toEqual(['photos'])
  })

  it('when the listed copy is damaged, names it damaged and writes no older copy in its place', async () => {
    const listed = await single('doc.txt', 'x'.repeat(70_000), t0 + day)
    listed[listed.length - 5]! ^= 1
    await put('listed.vault', listed)
    await put('older.vault', await single('doc.txt', 'an older version', t0))
    await put(
      'manifest.vault',
      await encryptManifest(
        { sequence: 3, writtenAtMs: t0 + day, entries: [entry('doc.txt', 'x'.repeat(70_000), t0 + day)] },
        { vaultKey, vaultId },
      ),
    )
    const run = await recoverRun({ vaultKey, vaultId, inputs: [inDir], outDir })
    expect(await readdir(outDir)).toEqual([])
    expect(rows(run.results)).toEqual([
      ['listed.vault', '', 'failed'],
      ['older.vault', '', 'superseded'],
      ['', 'doc.txt', 'missing'],
    ])
    expect(run.results[1]!.message).toMatch(
      /not the version the vault's newest list of files \(number 3\) names. If you need it, recover its encrypted file on its own/,
    )
    expect(run.results[2]).toMatchObject({ reason: 'damaged' })
    expect(run.results[2]!.message).toMatch(/^Damaged: .* an older copy is not written in its place/)
  })

  it('without a manifest, an older copy written because the newest is damaged is flagged (exit status 1)', async () => {
    const newest = await single('doc.txt', 'y'.repeat(70_000), t0 + day)
    newest[newest.length - 5]! ^= 1
    await put('newest.vault', newest)
    await put('older.vault', await single('doc.txt', 'an older version', t0))
    const run = await recoverRun({ vaultKey, vaultId, inputs: [inDir], outDir })
    expect(await read('doc.txt')).toBe('an older version')
    const older = run.results.find((r) => r.input.endsWith('older.vault'))!
    expect(older).toMatchObject({ status: 'recovered', olderCopy: true })
    expect(older.message).toMatch(
      /^Recovered from an older copy: the newest copy \(in newest\.vault, written 2031-05-02 09:00 UTC\)/,
    )
    // Format-3 copies without any manifest: the list was lost or withheld, said and counted.
    expect(run.manifestExpected).toBe(true)
    expect(manifestNote(run)).toMatch(/so it was lost or withheld/)
    expect(runProblems(run)).toEqual([
      "the vault's list of files is missing",
      '1 file(s) written from an older copy',
    ])
  })
})
