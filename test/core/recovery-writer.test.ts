// The one recovery writer, through each path that uses it: the app's recovery from .vault files (IPC),
// the command-line library, and the writer itself. Names come from the authenticated blob, nothing is
// ever replaced, and a failure leaves nothing behind.
import { createHash } from 'node:crypto'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { EventHub } from '../../src/main/core/ipc/handler-table'
import { createRecoveryHandlers } from '../../src/main/core/ipc/recovery-handlers'
import { recoverFiles } from '../../src/recovery/recover-files'
import {
  confinedPath,
  RecoveryWriteError,
  type RecoveryWriteOptions,
  windowsSafeSegment,
  writeRecoveredBlob,
} from '../../src/recovery/recovery-writer'
import { SSS_PRESET_SHAPE } from '../../src/shared/api'
import {
  collectBytes,
  encodeShareWords,
  encryptBundleStream,
  encryptManifest,
  encryptStream,
  generateVaultKey,
  splitVaultKey,
} from '../../src/vault-format'
import { HEADER_SIZE, SEALED_CHUNK_SIZE } from '../../src/vault-format/chunked-format'
import { encryptStreamV1 } from '../crypto/support/legacy-v1'
import { encryptBlobV2 } from '../crypto/support/legacy-writers'

const vaultId = 'vault-writer-test'
const vaultKey = generateVaultKey()

async function sealed(path: string, content: Buffer): Promise<Buffer> {
  return Buffer.from(
    await collectBytes(
      encryptStream(Readable.from([content]), {
        vaultKey,
        vaultId,
        identity: { path, size: content.length },
      }),
    ),
  )
}

/** A bundle of these files, written at `createdAtMs`. */
async function bundled(
  files: Record<string, string | Buffer>,
  createdAtMs = 1_700_000_000_000,
): Promise<Buffer> {
  const entries = Object.entries(files).map(([path, content]) => {
    const bytes = Buffer.from(content)
    return { identity: { path, size: bytes.length }, content: () => [bytes] }
  })
  return Buffer.from(await collectBytes(encryptBundleStream(entries, { vaultKey, vaultId, createdAtMs })))
}

/** The writer on a file blob (not a bundle): its one result. */
async function writeRecoveredFile(options: RecoveryWriteOptions) {
  const written = await writeRecoveredBlob(options)
  if (written.kind !== 'file') throw new Error('expected a file blob')
  return written.file
}

/** Every entry under dir, '/'-separated, hidden ones included. */
async function tree(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  return entries.map((e) => join(e.parentPath, e.name).slice(dir.length + 1)).sort()
}

let dir: string
let inDir: string
let outDir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vault-writer-'))
  inDir = join(dir, 'in')
  outDir = join(dir, 'out')
  await mkdir(inDir)
  await mkdir(outDir)
})
afterEach(() => rm(dir, { recursive: true, force: true }))

describe('recovery in the app (IPC)', () => {
  const recover = async (inputs: string[]) => {
    const shares = (await splitVaultKey(vaultKey, vaultId, SSS_PRESET_SHAPE.standard)).map(encodeShareWords)
    const handlers = createRecoveryHandlers({ events: new EventHub() })
    return handlers.recoverFiles({ shares: shares.slice(0, 2), inputs, outputDir: outDir })
  }

  it("never replaces the user's file of the same name, and leaves the user's own .partial alone", async () => {
    await writeFile(join(inDir, 'notes.txt.vault'), await sealed('notes.txt', Buffer.from('recovered notes')))
    await writeFile(join(outDir, 'notes.txt'), 'my own notes, not from the vault')
    await writeFile(join(outDir, 'notes.txt.partial'), 'my own partial file')

    const report = await recover([inDir])
    expect(report.results).toEqual([
      expect.objectContaining({
        input: 'notes.txt.vault',
        ok: false,
        message: expect.stringMatching(/left untouched/),
      }),
    ])
    expect(await readFile(join(outDir, 'notes.txt'), 'utf8')).toBe('my own notes, not from the vault')
    expect(await readFile(join(outDir, 'notes.txt.partial'), 'utf8')).toBe('my own partial file')
    expect(await tree(outDir)).toEqual(['notes.txt', 'notes.txt.partial'])
  })

  it('a bad extra kit (an old set, or words that do not read) is set aside and said, not fatal', async () => {
    await writeFile(join(inDir, 'a.txt.vault'), await sealed('a.txt', Buffer.from('A')))
    const oldSet = (await splitVaultKey(vaultKey, vaultId, SSS_PRESET_SHAPE.standard)).map(encodeShareWords)
    const current = (await splitVaultKey(vaultKey, vaultId, SSS_PRESET_SHAPE.standard)).map(encodeShareWords)
    const handlers = createRecoveryHandlers({ events: new EventHub() })
    const report = await handlers.recoverFiles({
      shares: [oldSet[0]!, current[0]!, 'these words are not a kit at all', current[1]!],
      inputs: [inDir],
      outputDir: outDir,
    })
    expect(report.results).toEqual([expect.objectContaining({ ok: true })])
    expect(report.kitsSetAside).toHaveLength(2)
    expect(report.kitsSetAside!.join('\n')).toMatch(/Kit 1/)
    expect(report.kitsSetAside!.join('\n')).toMatch(/Kit 3 cannot be read/)
  })

  it('names files from the authenticated blob, so swapped or renamed blobs land under their true names', async () => {
    // The service (or anyone) swapped the two stored names.
    await writeFile(join(inDir, 'b.txt.vault'), await sealed('docs/a.txt', Buffer.from('content of A')))
    await writeFile(join(inDir, 'a.txt.vault'), await sealed('docs/b.txt', Buffer.from('content of B')))
    const report = await recover([inDir])
    expect(report.results.every((r) => r.ok)).toBe(true)
    expect(await readFile(join(outDir, 'docs', 'a.txt'), 'utf8')).toBe('content of A')
    expect(await readFile(join(outDir, 'docs', 'b.txt'), 'utf8')).toBe('content of B')
    expect(await tree(outDir)).toEqual(['docs', 'docs/a.txt', 'docs/b.txt'])
  })

  it("names a file the vault's list holds but no copy does, and says which list it went by", async () => {
    const will = Buffer.from('the will')
    await writeFile(join(inDir, 'will.vault'), await sealed('will.txt', will))
    const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex')
    const now = Date.now()
    await writeFile(
      join(inDir, 'list.vault'),
      await encryptManifest(
        {
          sequence: 4,
          writtenAtMs: now,
          entries: [
            { path: 'will.txt', size: will.length, sha256: sha(will), writtenAtMs: now },
            { path: 'letters/ana.txt', size: 3, sha256: sha(Buffer.from('ana')), writtenAtMs: now },
          ],
        },
        { vaultKey, vaultId },
      ),
    )
    const report = await recover([inDir])
    expect(report.results).toEqual([
      expect.objectContaining({ input: 'will.vault', ok: true, status: 'recovered' }),
      expect.objectContaining({
        input: 'letters/ana.txt',
        ok: false,
        status: 'failed',
        message: expect.stringMatching(/^Missing: the vault's newest list of files \(number 4\)/),
      }),
    ])
    expect(report.manifestNote).toMatch(
      /newest list of files: number 4, .* naming 2 file\(s\) \(list\.vault\)/,
    )
  })
})

describe('the recovery writer', () => {
  it('counts an identical file already there as kept, and refuses a different one', async () => {
    const blob = join(inDir, 'x.vault')
    await writeFile(blob, await sealed('letter.txt', Buffer.from('dear heirs')))
    const options = { input: blob, outDir, fallbackPath: 'x', vaultKey, vaultId }
    expect(await writeRecoveredFile(options)).toMatchObject({
      status: 'recovered',
      nameFrom: 'blob',
      bytes: 10,
    })
    expect(await writeRecoveredFile(options)).toMatchObject({ status: 'kept', relativePath: 'letter.txt' })
    await writeFile(join(outDir, 'letter.txt'), 'changed by the user')
    await expect(writeRecoveredFile(options)).rejects.toMatchObject({ reason: 'exists' })
    expect(await readFile(join(outDir, 'letter.txt'), 'utf8')).toBe('changed by the user')
    expect(await tree(outDir)).toEqual(['letter.txt'])
  })

  it('uses the given name for an old (format 1) blob', async () => {
    const blob = join(inDir, 'old.vault')
    const content = Buffer.from('an old file')
    await writeFile(
      blob,
      Buffer.from(await collectBytes(encryptStreamV1(Readable.from([content]), { vaultKey, vaultId }))),
    )
    const written = await writeRecoveredFile({
      input: blob,
      outDir,
      fallbackPath: 'sub/old.txt',
      vaultKey,
      vaultId,
    })
    expect(written).toMatchObject({ status: 'recovered', nameFrom: 'caller', relativePath: 'sub/old.txt' })
    expect(await readFile(join(outDir, 'sub', 'old.txt'), 'utf8')).toBe('an old file')
  })

  it('leaves nothing behind when a blob fails half-way, not even the folders it made', async () => {
    const content = Buffer.alloc(300_000, 7)
    const blob = await sealed('deep/inside/big.bin', content)
    blob[blob.length - 100]! ^= 1
    await writeFile(join(inDir, 'big.vault'), blob)
    await expect(
      writeRecoveredFile({ input: join(inDir, 'big.vault'), outDir, fallbackPath: 'big', vaultKey, vaultId }),
    ).rejects.toMatchObject({ name: 'FileCipherError' })
    expect(await tree(outDir)).toEqual([])
  })

  it('refuses an old blob whose given name would leave the folder', async () => {
    const blob = join(inDir, 'old.vault')
    await writeFile(
      blob,
      Buffer.from(
        await collectBytes(encryptStreamV1(Readable.from([Buffer.from('x')]), { vaultKey, vaultId })),
      ),
    )
    for (const fallbackPath of ['../escape.txt', '/etc/passwd', 'a/../../b', 'a\\..\\x', 'a//b', '']) {
      await expect(
        writeRecoveredFile({ input: blob, outDir, fallbackPath, vaultKey, vaultId }),
        fallbackPath,
      ).rejects.toBeInstanceOf(RecoveryWriteError)
    }
    expect(await tree(dir)).toEqual(['in', 'in/old.vault', 'out'])
  })

  it('renames what Windows cannot hold instead of losing the file', () => {
    expect(windowsSafeSegment('notes: 2024?.txt')).toBe('notes_ 2024_.txt')
    expect(windowsSafeSegment('CON')).toBe('_CON')
    expect(windowsSafeSegment('nul.txt')).toBe('_nul.txt')
    expect(windowsSafeSegment('trailing. ')).toBe('trailing')
    expect(windowsSafeSegment('...')).toBe('_')
    expect(windowsSafeSegment('console.txt')).toBe('console.txt')
    expect(confinedPath('/out', 'a:b/CON', 'win32')).toBe(join('/out', 'a_b', '_CON'))
    expect(confinedPath('/out', 'a:b/CON', 'linux')).toBe(join('/out', 'a:b', 'CON'))
  })

  it('confines every path to the output folder', () => {
    expect(confinedPath('/out', 'a/b.txt')).toBe(join('/out', 'a', 'b.txt'))
    for (const bad of ['..', '../x', 'a/./b', 'a\\b', 'x\u0000y', '/abs']) {
      expect(confinedPath('/out', bad), bad).toBeNull()
    }
  })
})

describe('the command-line library', () => {
  it('reports kept for a file recovered by an earlier run and never overwrites', async () => {
    await writeFile(join(inDir, 'a.txt.vault'), await sealed('a.txt', Buffer.from('A')))
    const first = await recoverFiles({ vaultKey, vaultId, inputs: [inDir], outDir })
    expect(first.map((r) => r.status)).toEqual(['recovered'])
    const again = await recoverFiles({ vaultKey, vaultId, inputs: [inDir], outDir })
    expect(again.map((r) => r.status)).toEqual(['kept'])
    await writeFile(join(outDir, 'a.txt'), 'B')
    const conflict = await recoverFiles({ vaultKey, vaultId, inputs: [inDir], outDir })
    expect(conflict).toEqual([expect.objectContaining({ status: 'skipped', reason: 'exists' })])
    expect(await readFile(join(outDir, 'a.txt'), 'utf8')).toBe('B')
  })
})

describe('the recovery writer under mutated blobs (fuzzed)', () => {
  it('writes the exact original or nothing at all: never a partial, temp or wrong file', async () => {
    const content = Buffer.from(Array.from({ length: 40_000 }, (_, i) => (i * 31) & 255))
    const original = await sealed('folder/file.bin', content)
    const mutation = fc.oneof(
      fc.record({ kind: fc.constant('truncate' as const), at: fc.nat(original.length - 1) }),
      fc.record({
        kind: fc.constant('extend' as const),
        extra: fc.uint8Array({ minLength: 1, maxLength: 70_000 }),
      }),
      fc.record({ kind: fc.constant('flip' as const), at: fc.nat(original.length - 1), bit: fc.nat(7) }),
      fc.record({ kind: fc.constant('swap' as const), a: fc.nat(2), b: fc.nat(2) }),
    )
    const sealedChunk = SEALED_CHUNK_SIZE
    const header = HEADER_SIZE
    await fc.assert(
      fc.asyncProperty(mutation, async (m) => {
        let blob: Buffer
        if (m.kind === 'truncate') blob = original.subarray(0, m.at)
        else if (m.kind === 'extend') blob = Buffer.concat([original, m.extra])
        else if (m.kind === 'flip') {
          blob = Buffer.from(original)
          blob[m.at]! ^= 1 << m.bit
        } else {
          const chunk = (i: number) =>
            original.subarray(header + i * sealedChunk, header + (i + 1) * sealedChunk)
          const order = [0, 1, 2]
          ;[order[m.a], order[m.b]] = [order[m.b]!, order[m.a]!]
          blob = Buffer.concat([original.subarray(0, header), ...order.map(chunk)])
        }
        const out = await mkdtemp(join(dir, 'fuzz-'))
        const input = join(dir, `${out.split('fuzz-')[1]}.vault`)
        await writeFile(input, blob)
        let written = false
        try {
          await writeRecoveredFile({ input, outDir: out, fallbackPath: 'x', vaultKey, vaultId })
          written = true
        } catch (error) {
          expect((error as Error).name).toBe('FileCipherError')
        }
        if (written) {
          expect(blob.equals(original)).toBe(true)
          expect(await readFile(join(out, 'folder', 'file.bin'))).toEqual(content)
          expect(await tree(out)).toEqual(['folder', 'folder/file.bin'])
        } else {
          expect(await tree(out)).toEqual([])
        }
        await rm(out, { recursive: true })
        await rm(input)
      }),
      { numRuns: 40 },
    )
  })
})

describe('bundles', () => {
  const day = 86_400_000
  const t0 = Date.parse('2030-03-01T12:00:00Z')

  it('recoverFiles unpacks a bundle: one result per file inside, named from the bundle, nothing else', async () => {
    await writeFile(
      join(inDir, 'bundle-1.vault'),
      await bundled({
        'notes/todo.txt': 'buy milk',
        'empty.txt': '',
        'photos/cat.jpg': Buffer.alloc(50_000, 3),
      }),
    )
    const results = await recoverFiles({ vaultKey, vaultId, inputs: [inDir], outDir })
    expect(results.map((r) => [r.entry, r.status, r.bytes])).toEqual([
      ['notes/todo.txt', 'recovered', 8],
      ['empty.txt', 'recovered', 0],
      ['photos/cat.jpg', 'recovered', 50_000],
    ])
    expect(results.every((r) => r.input === join(inDir, 'bundle-1.vault'))).toBe(true)
    expect(await readFile(join(outDir, 'notes', 'todo.txt'), 'utf8')).toBe('buy milk')
    expect(await readFile(join(outDir, 'photos', 'cat.jpg'))).toEqual(Buffer.alloc(50_000, 3))
    expect(await tree(outDir)).toEqual(['empty.txt', 'notes', 'notes/todo.txt', 'photos', 'photos/cat.jpg'])
    // Again: every file is already there, identical.
    const again = await recoverFiles({ vaultKey, vaultId, inputs: [inDir], outDir })
    expect(again.map((r) => r.status)).toEqual(['kept', 'kept', 'kept'])
  })

  it('in the app, each file of a bundle is listed under the bundle', async () => {
    await writeFile(join(inDir, 'b.vault'), await bundled({ 'a.txt': 'A', 'sub/b.txt': 'B' }))
    const shares = (await splitVaultKey(vaultKey, vaultId, SSS_PRESET_SHAPE.standard)).map(encodeShareWords)
    const handlers = createRecoveryHandlers({ events: new EventHub() })
    const report = await handlers.recoverFiles({
      shares: shares.slice(0, 2),
      inputs: [inDir],
      outputDir: outDir,
    })
    expect(report.results).toEqual([
      expect.objectContaining({
        input: 'b.vault › a.txt',
        ok: true,
        status: 'recovered',
        output: join(outDir, 'a.txt'),
      }),
      expect.objectContaining({ input: 'b.vault › sub/b.txt', ok: true, status: 'recovered' }),
    ])
  })

  it('a byte altered in the middle: the files before stay, the rest are reported failed, nothing partial', async () => {
    const files: Record<string, Buffer> = {}
    for (let i = 0; i < 6; i++) files[`f${i}.bin`] = Buffer.alloc(30_000, i + 1)
    const blob = await bundled(files)
    // Chunk 6 holds the middle of f3 (the header is 12 + 6 * 16 bytes).
    blob[HEADER_SIZE + 6 * SEALED_CHUNK_SIZE + 1000]! ^= 0x10
    await writeFile(join(inDir, 'damaged.vault'), blob)
    const results = await recoverFiles({ vaultKey, vaultId, inputs: [inDir], outDir })
    expect(results.map((r) => [r.entry, r.status, r.reason])).toEqual([
      ['f0.bin', 'recovered', undefined],
      ['f1.bin', 'recovered', undefined],
      ['f2.bin', 'recovered', undefined],
      ['f3.bin', 'failed', 'damaged'],
      ['f4.bin', 'failed', 'damaged'],
      ['f5.bin', 'failed', 'damaged'],
    ])
    expect(results[3]!.message).toMatch(
      /changed or damaged at or before this file.*files before that point were recovered/,
    )
    expect(results[3]!.detail).toMatch(/byte \d+ was altered/)
    for (const name of ['f0.bin', 'f1.bin', 'f2.bin']) {
      expect(await readFile(join(outDir, name))).toEqual(files[name])
    }
    expect(await tree(outDir)).toEqual(['f0.bin', 'f1.bin', 'f2.bin'])
  })

  it('under mutated bundles (fuzzed): each file is its exact original or absent, complete files first', async () => {
    const files: Record<string, Buffer> = {}
    for (const [i, size] of [9000, 0, 25_000, 1, 16_384, 7000].entries()) {
      files[`dir${i % 2}/f${i}.bin`] = Buffer.from(Array.from({ length: size }, (_, k) => (k * 7 + i) & 255))
    }
    const original = await bundled(files)
    const chunks = Math.ceil((original.length - HEADER_SIZE) / SEALED_CHUNK_SIZE)
    const mutation = fc.oneof(
      fc.record({ kind: fc.constant('truncate' as const), at: fc.nat(original.length - 1) }),
      fc.record({
        kind: fc.constant('extend' as const),
        extra: fc.uint8Array({ minLength: 1, maxLength: 20_000 }),
      }),
      fc.record({ kind: fc.constant('flip' as const), at: fc.nat(original.length - 1), bit: fc.nat(7) }),
      fc.record({ kind: fc.constant('swap' as const), a: fc.nat(chunks - 2), b: fc.nat(chunks - 2) }),
    )
    await fc.assert(
      fc.asyncProperty(mutation, async (m) => {
        let blob: Buffer
        if (m.kind === 'truncate') blob = original.subarray(0, m.at)
        else if (m.kind === 'extend') blob = Buffer.concat([original, m.extra])
        else if (m.kind === 'flip') {
          blob = Buffer.from(original)
          blob[m.at]! ^= 1 << m.bit
        } else {
          const chunk = (i: number) =>
            original.subarray(HEADER_SIZE + i * SEALED_CHUNK_SIZE, HEADER_SIZE + (i + 1) * SEALED_CHUNK_SIZE)
          const order = Array.from({ length: chunks - 1 }, (_, i) => i)
          ;[order[m.a], order[m.b]] = [order[m.b]!, order[m.a]!]
          blob = Buffer.concat([
            original.subarray(0, HEADER_SIZE),
            ...order.map(chunk),
            original.subarray(HEADER_SIZE + (chunks - 1) * SEALED_CHUNK_SIZE),
          ])
        }
        const out = await mkdtemp(join(dir, 'fuzz-'))
        const input = `${out}.vault`
        await writeFile(input, blob)
        let written: Awaited<ReturnType<typeof writeRecoveredBlob>> | undefined
        try {
          written = await writeRecoveredBlob({ input, outDir: out, fallbackPath: 'x', vaultKey, vaultId })
        } catch (error) {
          // The header or the records did not authenticate: nothing at all.
          expect((error as Error).name).toBe('FileCipherError')
        }
        const present = (await tree(out)).filter((p) => p.endsWith('.bin'))
        if (!written) expect(await tree(out)).toEqual([])
        else {
          if (written.kind !== 'bundle') throw new Error('a bundle must stay a bundle')
          const statuses = written.files.map((f) => f.status)
          // Recovered files come first; once one failed, every later one failed too.
          expect(statuses.join(' ')).toMatch(/^(recovered ?)*(failed ?)*$/)
          if (blob.equals(original)) expect(statuses.every((x) => x === 'recovered')).toBe(true)
          else expect(statuses).toContain('failed')
          for (const f of written.files) {
            if (f.status === 'recovered') expect(await readFile(join(out, f.path))).toEqual(files[f.path])
          }
          expect(present).toEqual(
            written.files
              .filter((f) => f.status === 'recovered')
              .map((f) => f.path)
              .sort(),
          )
        }
        expect((await tree(out)).filter((p) => p.includes('.partial'))).toEqual([])
        await rm(out, { recursive: true })
        await rm(input)
      }),
      { numRuns: 40 },
    )
  })

  it('the newest copy of a path wins: older bundles and undated single blobs are superseded, whatever the order', async () => {
    // Named so that the oldest sorts first: the order given must not matter.
    await writeFile(
      join(inDir, 'a-oldest.vault'),
      await bundled({ 'doc.txt': 'version 1', 'only-old.txt': 'x' }, t0),
    )
    await writeFile(join(inDir, 'b-newest.vault'), await bundled({ 'doc.txt': 'version 3' }, t0 + 2 * day))
    await writeFile(join(inDir, 'c-middle.vault'), await bundled({ 'doc.txt': 'version 2' }, t0 + day))
    await writeFile(
      join(inDir, '0-single.vault'),
      Buffer.from(
        await encryptBlobV2(Buffer.from('a single blob, no date'), { vaultKey, vaultId, path: 'doc.txt' }),
      ),
    )
    const results = await recoverFiles({ vaultKey, vaultId, inputs: [inDir], outDir })
    const summary = results.map((r) => [r.input.slice(inDir.length + 1), r.entry ?? '', r.status])
    // Written as met, then the copies left out, in the order found.
    expect(summary).toEqual([
      ['b-newest.vault', 'doc.txt', 'recovered'],
      ['a-oldest.vault', 'only-old.txt', 'recovered'],
      ['0-single.vault', '', 'superseded'],
      ['a-oldest.vault', 'doc.txt', 'superseded'],
      ['c-middle.vault', 'doc.txt', 'superseded'],
    ])
    expect(results[2]!.message).toMatch(
      /A newer copy of this file \(in b-newest\.vault, written 2030-03-03 12:00 UTC\) was recovered/,
    )
    expect(await readFile(join(outDir, 'doc.txt'), 'utf8')).toBe('version 3')
    expect(await tree(outDir)).toEqual(['doc.txt', 'only-old.txt'])
  })

  it('when the newest copy is damaged, the next older one is recovered and says so', async () => {
    // Big enough that the damage lies after the chunk holding the records.
    const newest = await bundled({ 'doc.txt': Buffer.alloc(40_000, 2) }, t0 + day)
    newest[newest.length - 3]! ^= 1
    await writeFile(join(inDir, 'new.vault'), newest)
    await writeFile(join(inDir, 'old.vault'), await bundled({ 'doc.txt': 'version 1' }, t0))
    const results = await recoverFiles({ vaultKey, vaultId, inputs: [inDir], outDir })
    expect(results.map((r) => [r.input.slice(inDir.length + 1), r.status])).toEqual([
      ['new.vault', 'failed'],
      ['old.vault', 'recovered'],
    ])
    expect(results[1]!.message).toMatch(
      /older copy: the newest copy \(in new\.vault, written .*\) could not be recovered/,
    )
    expect(await readFile(join(outDir, 'doc.txt'), 'utf8')).toBe('version 1')
  })

  it("leaves a different user file at a bundle's path untouched, and recovers the bundle's other files", async () => {
    await writeFile(
      join(inDir, 'b.vault'),
      await bundled({ 'mine.txt': 'from the vault', 'other.txt': 'other' }, t0),
    )
    await writeFile(join(inDir, 'older.vault'), await bundled({ 'mine.txt': 'older copy' }, t0 - day))
    await writeFile(join(outDir, 'mine.txt'), 'my own file')
    const results = await recoverFiles({ vaultKey, vaultId, inputs: [inDir], outDir })
    expect(results.map((r) => [r.entry, r.status, r.reason])).toEqual([
      ['mine.txt', 'skipped', 'exists'],
      ['other.txt', 'recovered', undefined],
      ['mine.txt', 'superseded', undefined],
    ])
    expect(results[0]!.message).toMatch(/A different file named "mine\.txt" is already in .*left untouched/)
    expect(results[2]!.message).toMatch(/could not be written because a different file is in the way/)
    expect(await readFile(join(outDir, 'mine.txt'), 'utf8')).toBe('my own file')
    expect(await tree(outDir)).toEqual(['mine.txt', 'other.txt'])
  })

  it('a file that cannot be written (its folder is a file of another blob) fails alone', async () => {
    // One bundle cannot list 'a' and 'a/b' (FORMAT.md 3.9); two blobs of a vault can.
    await writeFile(join(inDir, 'clash.vault'), await bundled({ a: 'file a', c: 'c' }))
    await writeFile(join(inDir, 'folder.vault'), await sealed('a/b', Buffer.from('file in a folder a')))
    const results = await recoverFiles({ vaultKey, vaultId, inputs: [inDir], outDir })
    expect(results.map((r) => [r.entry ?? r.input.slice(inDir.length + 1), r.status, r.reason])).toEqual([
      ['a', 'recovered', undefined],
      ['c', 'recovered', undefined],
      ['folder.vault', 'failed', 'write-failed'],
    ])
    expect(results[2]!.message).toMatch(/"a" in the output folder is a file where its folder must be/)
    expect(await tree(outDir)).toEqual(['a', 'c'])
  })
})
