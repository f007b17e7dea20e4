// The recovery page's pure pieces, in Node (WebCrypto is the same interface here): a run gives the
// recovery tool's outcome for the same blobs (the same plan: recovered, damaged, missing, older copies,
// newer than the list), names stay confined, Windows-safe and apart, a file that fails or has other
// content than the list names is discarded, a file in the way is skipped; kits read and combine with
// the app's words; the local source keeps .vault files only.

import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { recoverRun } from '../../src/recovery/recover-files'
import { vaultFiles } from '../../src/recovery-page/local-source'
import { checkKit, KitError, keyFromKits, kitsSummary } from '../../src/recovery-page/page-kits'
import {
  type PageFileSink,
  PageWriteError,
  type PageWriter,
  pageSegments,
  recoverInPage,
} from '../../src/recovery-page/page-recovery'
import type { PageBlob } from '../../src/recovery-page/page-source'
import { PAGE_TEXT, pageLanguage } from '../../src/recovery-page/page-text'
import { downloadWriter } from '../../src/recovery-page/page-writer'
import { SSS_PRESET_SHAPE } from '../../src/shared/api'
import {
  collectBytes,
  encodeOwnerKitWords,
  encodeShareWords,
  encryptBundleStream,
  encryptManifest,
  encryptStream,
  generateVaultKey,
  splitVaultKey,
} from '../../src/vault-format'

const vaultKey = generateVaultKey()
const vaultId = 'page-recovery-test'
const work = mkdtempSync(join(tmpdir(), 'vault-page-recovery-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))
const t = PAGE_TEXT.en
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex')
const text = (s: string) => new TextEncoder().encode(s)

async function fileBlob(path: string, content: Uint8Array, writtenAtMs: number): Promise<Uint8Array> {
  return collectBytes(
    encryptStream([content], { vaultKey, vaultId, identity: { path, size: content.length, writtenAtMs } }),
  )
}

function blobOf(label: string, bytes: Uint8Array): PageBlob {
  return {
    label,
    size: bytes.length,
    open: async () =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          // In uneven pieces, as a disk or a network gives them.
          for (let i = 0; i < bytes.length; i += 70_001) controller.enqueue(bytes.slice(i, i + 70_001))
          controller.close()
        },
      }),
  }
}

/** A folder in memory: files kept on commit only; what was discarded is remembered. */
function memoryWriter(existing: string[] = []) {
  const files = new Map<string, Uint8Array>()
  for (const path of existing) files.set(path, new Uint8Array())
  const discarded: string[] = []
  const writer: PageWriter = {
    async create(segments) {
      const path = segments.join('/')
      if (files.has(path)) throw new PageWriteError('exists', t.inTheWay(path))
      const parts: Uint8Array[] = []
      const sink: PageFileSink = {
        write: async (bytes) => {
          parts.push(bytes.slice())
        },
        commit: async () => {
          files.set(path, Buffer.concat(parts))
          return {}
        },
        discard: async () => {
          discarded.push(path)
        },
      }
      return sink
    },
  }
  return { writer, files, discarded }
}

const words = {
  tooLarge: t.tooLarge,
  inTheWay: t.inTheWay,
  writeFailed: t.writeFailed,
  readFailed: t.readFailed,
  blobChanged: t.blobChanged,
  bundleBroken: t.bundleBroken,
}

describe('a run in the page, by the recovery tool’s plan', () => {
  it('gives the recovery tool’s outcome for the same blobs: recovered, damaged, missing, older, newer', async () => {
    const day = Date.parse('2026-10-01T00:00:00Z')
    const will = text('the will, final version')
    const oldWill = text('the will, a draft')
    const photo = new Uint8Array(200_000).map((_, i) => (i * 13) & 0xff)
    const letter = text('a letter')
    const late = text('written after the list')
    const manifest = await encryptManifest(
      {
        sequence: 7,
        writtenAtMs: day + 10_000,
        entries: [
          { path: 'docs/will.txt', size: will.length, sha256: sha256(will), writtenAtMs: day + 5000 },
          { path: 'letter.txt', size: letter.length, sha256: sha256(letter), writtenAtMs: day },
          { path: 'photo.jpg', size: photo.length, sha256: sha256(photo), writtenAtMs: day },
        ].sort((a, b) => (a.path < b.path ? -1 : 1)),
      },
      { vaultKey, vaultId },
    )
    const damagedPhoto = await fileBlob('photo.jpg', photo, day)
    damagedPhoto[damagedPhoto.length - 100]! ^= 1
    const blobs: [string, Uint8Array][] = [
      ['a.vault', await fileBlob('docs/will.txt', will, day + 5000)],
      ['b.vault', await fileBlob('docs/will.txt', oldWill, day + 1000)],
      ['c.vault', damagedPhoto],
      ['d.vault', await fileBlob('late.txt', late, day + 99_000)],
      ['m.vault', manifest],
    ]
    // letter.txt: listed, no copy at all.
    const dir = join(work, 'tool')
    mkdirSync(dir)
    for (const [name, bytes] of blobs) writeFileSync(join(dir, name), bytes)
    const tool = await recoverRun({ vaultKey, vaultId, inputs: [dir], outDir: join(work, 'tool-out') })

    const memory = memoryWriter()
    const run = await recoverInPage({
      blobs: blobs.map(([name, bytes]) => blobOf(name, bytes)),
      vaultKey,
      vaultId,
      writer: memory.writer,
      words,
    })
    // The tool names a listed file whose only copy is damaged as missing with reason 'damaged' (and the
    // copy's own failure apart, by the encrypted file's name); the page says it once, as damaged.
    const toolOutcome = tool.results
      .filter((r) => r.status !== 'failed')
      .map(
        (r) =>
          `${r.entry ?? r.output.slice(join(work, 'tool-out').length + 1)} ${r.status === 'missing' && r.reason === 'damaged' ? 'damaged' : r.status}`,
      )
      .sort()
    const pageOutcome = run.results.map((r) => `${r.entry ?? r.output} ${r.status}`).sort()
    expect(pageOutcome).toEqual(toolOutcome)
    const outcome = (results: typeof run.results) =>
      results.map((r) => `${r.entry ?? r.output} ${r.status}`).sort()
    expect(outcome(run.results)).toEqual([
      'docs/will.txt recovered',
      'docs/will.txt superseded',
      'late.txt newer',
      'letter.txt missing',
      'photo.jpg damaged',
    ])
    expect(run.manifest).toMatchObject({ sequence: 7, listed: 3 })
    expect(Buffer.from(memory.files.get('docs/will.txt')!).toString()).toBe('the will, final version')
    // The damaged photo was written as it decrypted, then removed.
    expect(memory.files.has('photo.jpg')).toBe(false)
    expect(memory.discarded).toEqual(['photo.jpg'])
  })

  it('a copy with other content than the list names is discarded and the next copy tried', async () => {
    const real = text('listed content')
    const forged = text('other content!')
    const manifest = await encryptManifest(
      {
        sequence: 1,
        writtenAtMs: 2000,
        entries: [{ path: 'x.txt', size: real.length, sha256: sha256(real), writtenAtMs: 1000 }],
      },
      { vaultKey, vaultId },
    )
    const memory = memoryWriter()
    const run = await recoverInPage({
      blobs: [
        blobOf('forged.vault', await fileBlob('x.txt', forged, 1000)),
        blobOf('real.vault', await fileBlob('x.txt', real, 1000)),
        blobOf('m.vault', manifest),
      ],
      vaultKey,
      vaultId,
      writer: memory.writer,
      words,
    })
    expect(memory.discarded).toEqual(['x.txt'])
    expect(Buffer.from(memory.files.get('x.txt')!).toString()).toBe('listed content')
    expect(run.results.find((r) => r.status === 'recovered')?.label).toBe('real.vault')
  })

  it('names from inside the blobs: Windows-safe, apart when a disk would take them for one, and never replacing a file', async () => {
    const entries = ['CON.txt', 'Notes.txt', 'notes.txt', 'a/b.txt'].map((path, i) => ({
      identity: { path, size: 1, writtenAtMs: 1000 + i },
      content: () => [new Uint8Array([i])],
    }))
    const bundle = await collectBytes(encryptBundleStream(entries, { vaultKey, vaultId, createdAtMs: 5000 }))
    const memory = memoryWriter(['a/b.txt'])
    const run = await recoverInPage({
      blobs: [blobOf('bundle.vault', bundle)],
      vaultKey,
      vaultId,
      writer: memory.writer,
      words,
    })
    expect([...memory.files.keys()].sort()).toEqual(['Notes.txt', '_CON.txt', 'a/b.txt', 'notes (2).txt'])
    expect(run.results.find((r) => r.entry === 'a/b.txt')).toMatchObject({
      status: 'skipped',
      message: t.inTheWay('a/b.txt'),
    })
    expect(run.results.find((r) => r.entry === 'notes.txt')?.message).toMatch(/Saved as "notes \(2\)\.txt"/)
  })

  it('refuses a path that could leave the folder', () => {
    expect(pageSegments('a/../b')).toBeNull()
    expect(pageSegments('/etc/passwd')).toBeNull()
    expect(pageSegments('a\\b')).toBeNull()
    expect(pageSegments('dir/aux.log')).toEqual(['dir', '_aux.log'])
    expect(pageSegments('trailing. ')).toEqual(['trailing'])
  })

  it('a key that opens none of the blobs: every one is reported, nothing written', async () => {
    const memory = memoryWriter()
    const run = await recoverInPage({
      blobs: [blobOf('a.vault', await fileBlob('a.txt', text('a'), 1))],
      vaultKey: generateVaultKey(),
      vaultId,
      writer: memory.writer,
      words,
    })
    expect(run.results).toHaveLength(1)
    expect(run.results[0]).toMatchObject({ status: 'damaged', label: 'a.vault' })
    expect(run.results[0]!.message).toMatch(/not encrypted with this vault's key/)
    expect(memory.files.size).toBe(0)
  })

  it('Stop ends the run and removes the file being written', async () => {
    const big = new Uint8Array(24 << 20)
    const blob = await fileBlob('big.bin', big, 1)
    const memory = memoryWriter()
    const stop = new AbortController()
    const run = recoverInPage({
      blobs: [blobOf('big.vault', blob)],
      vaultKey,
      vaultId,
      writer: memory.writer,
      words,
      signal: stop.signal,
      onProgress: (p) => {
        if (p.phase === 'write' && p.bytesDone > 12 << 20)
          stop.abort(new DOMException('Stopped', 'AbortError'))
      },
    })
    await expect(run).rejects.toMatchObject({ name: 'AbortError' })
    expect(memory.files.size).toBe(0)
    expect(memory.discarded).toEqual(['big.bin'])
  })
  it('the survey reads only the start of each blob, and the write reads it once more in full', async () => {
    const blob = await fileBlob('big.bin', new Uint8Array(24 << 20), 1)
    const reads: number[] = []
    const counted: PageBlob = {
      label: 'big.vault',
      size: blob.length,
      open: async () => {
        let at = 0
        const read = reads.push(0) - 1
        return new ReadableStream<Uint8Array>({
          pull(controller) {
            if (at >= blob.length) return controller.close()
            const piece = blob.slice(at, at + 65_536)
            at += piece.length
            reads[read]! += piece.length
            controller.enqueue(piece)
          },
        })
      },
    }
    const memory = memoryWriter()
    await recoverInPage({ blobs: [counted], vaultKey, vaultId, writer: memory.writer, words })
    expect(memory.files.get('big.bin')?.length).toBe(24 << 20)
    expect(reads).toHaveLength(2)
    expect(reads[0]).toBeLessThan(2 << 20)
    expect(reads[1]).toBe(blob.length)
  })
})

describe('a blob read twice, for the survey and for the write', () => {
  const streamOf = (bytes: Uint8Array) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice())
        controller.close()
      },
    })
  /** A source that answers the second download of a blob with another blob (as a hostile service may). */
  const swapped = (label: string, first: Uint8Array, then: Uint8Array): PageBlob => {
    let opens = 0
    return { label, size: first.length, open: async () => streamOf(opens++ === 0 ? first : then) }
  }

  it('another authentic file of the vault at the second download is not written under the surveyed name', async () => {
    const day = Date.parse('2026-10-01T00:00:00Z')
    // Same path and content lengths: the same blob length, as the listing declares.
    const will = await fileBlob('will.txt', text('the final will'), day)
    const list = await fileBlob('list.txt', text('list of photos'), day)
    expect(will.length).toBe(list.length)
    const memory = memoryWriter()
    const run = await recoverInPage({
      blobs: [swapped('“will.txt” on the service', will, list), blobOf('“list.txt” on the service', list)],
      vaultKey,
      vaultId,
      writer: memory.writer,
      words,
    })
    expect(memory.files.has('will.txt')).toBe(false)
    expect(memory.discarded).toEqual([])
    expect(run.results.find((r) => r.output === 'will.txt')).toMatchObject({
      status: 'failed',
      message: t.blobChanged('“will.txt” on the service'),
    })
    expect(Buffer.from(memory.files.get('list.txt')!).toString()).toBe('list of photos')
  })

  it('a bundle that is another one at the second download: each of its files fails, nothing is written', async () => {
    const bundle = (content: string) =>
      collectBytes(
        encryptBundleStream(
          ['a.txt', 'b.txt'].map((path) => ({
            identity: { path, size: content.length, writtenAtMs: 1000 },
            content: () => [text(content)],
          })),
          { vaultKey, vaultId, createdAtMs: 5000 },
        ),
      )
    const surveyed = await bundle('first')
    const memory = memoryWriter()
    const run = await recoverInPage({
      blobs: [swapped('bundle.vault', surveyed, await bundle('other'))],
      vaultKey,
      vaultId,
      writer: memory.writer,
      words,
    })
    expect(memory.files.size).toBe(0)
    expect(run.results.map((r) => `${r.entry} ${r.status}`)).toEqual(['a.txt failed', 'b.txt failed'])
    expect(run.results[0]!.message).toBe(t.blobChanged('bundle.vault'))
  })
})

describe('a bundle damaged after its first files', () => {
  const day = Date.parse('2026-10-01T00:00:00Z')
  const content = (seed: number, size: number) => new Uint8Array(size).map((_, i) => (i * seed + 7) & 0xff)
  /** Three files of `size` bytes; the byte at `at` (from the end when negative) flipped. */
  async function damagedBundle(size: number, at: number) {
    const files = { 'a.bin': content(3, size), 'b.bin': content(5, size), 'c.bin': content(11, size) }
    const entries = Object.entries(files).map(([path, bytes]) => ({
      identity: { path, size: bytes.length, writtenAtMs: day },
      content: () => [bytes],
    }))
    const bundle = await collectBytes(encryptBundleStream(entries, { vaultKey, vaultId, createdAtMs: day }))
    bundle[at < 0 ? bundle.length + at : at]! ^= 1
    const manifest = await encryptManifest(
      {
        sequence: 1,
        writtenAtMs: day,
        entries: Object.entries(files).map(([path, bytes]) => ({
          path,
          size: bytes.length,
          sha256: sha256(bytes),
          writtenAtMs: day,
        })),
      },
      { vaultKey, vaultId },
    )
    return { bundle, manifest }
  }

  it('keeps the lines and downloads of the files written before the damage, and names the damaged one', async () => {
    // 20 KB each, 4 chunks: a.bin ends in chunk 1, b.bin in chunk 2; the last chunk (c.bin) damaged.
    const { bundle } = await damagedBundle(20_000, -30)
    const run = await recoverInPage({
      blobs: [blobOf('bundle.vault', bundle)],
      vaultKey,
      vaultId,
      writer: downloadWriter(words),
      words,
    })
    expect(run.results.map((r) => `${r.entry} ${r.status}`)).toEqual([
      'a.bin recovered',
      'b.bin recovered',
      'c.bin damaged',
    ])
    expect(run.results.filter((r) => r.download)).toHaveLength(2)
  })

  it('with a list of files: the files after the damage get a line each, once', async () => {
    // 40 KB each: chunk 3 lies wholly in b.bin; a.bin is written, b.bin fails, c.bin is never reached.
    const { bundle, manifest } = await damagedBundle(40_000, 56 + 3 * 16_400 + 100)
    const memory = memoryWriter()
    const run = await recoverInPage({
      blobs: [blobOf('bundle.vault', bundle), blobOf('list.vault', manifest)],
      vaultKey,
      vaultId,
      writer: memory.writer,
      words,
    })
    expect(run.results.map((r) => `${r.entry} ${r.status}`)).toEqual([
      'a.bin recovered',
      'b.bin damaged',
      'c.bin damaged',
    ])
    expect(run.results[2]!.message).toBe(t.bundleBroken('bundle.vault'))
    expect([...memory.files.keys()]).toEqual(['a.bin'])
    expect(memory.discarded).toEqual(['b.bin'])
  })
})

describe('kits, as the app reads them', () => {
  it('reads guardian kits leniently, names a misspelt word, refuses practice kits, and takes the owner kit alone', async () => {
    const shares = await splitVaultKey(vaultKey, vaultId, SSS_PRESET_SHAPE.standard)
    const [one, two, three] = shares.map((s) => encodeShareWords(s))
    const read = checkKit(`  ${one!.toUpperCase().replaceAll(' ', '\n ')} `, t)
    expect(read).toMatchObject({
      ok: true,
      kind: 'guardian',
      shareIndex: 1,
      threshold: 2,
      shares: 3,
      vaultId,
    })
    const bad = one!.split(' ')
    bad[2] = 'qqqqz'
    expect(checkKit(bad.join(' '), t)).toMatchObject({
      ok: false,
      message: 'This kit could not be read.',
      detail: expect.stringMatching(/word 3/i),
    })
    const owner = encodeOwnerKitWords({ vaultKey, vaultId })
    expect(checkKit(owner, t)).toMatchObject({ ok: true, kind: 'owner', vaultId })

    expect(kitsSummary([checkKit(one!, t)], t).note).toBe(t.kitsShort(1, 2, 3))
    expect(kitsSummary([checkKit(one!, t), checkKit(three!, t)], t)).toEqual({
      enough: true,
      note: t.kitsEnough(2, 2, 3),
    })

    const key = await keyFromKits([one!, bad.join(' '), two!])
    expect(Buffer.from(key.vaultKey).equals(Buffer.from(vaultKey))).toBe(true)
    expect(key.setAside).toEqual([expect.stringMatching(/^Kit 2 cannot be read, so it was left out/)])
    expect((await keyFromKits([owner])).vaultId).toBe(vaultId)
    await expect(keyFromKits([one!])).rejects.toBeInstanceOf(KitError)
  })

  it('kits of two sets: the set with enough opens, and the page says the others will be left out', async () => {
    const first = (await splitVaultKey(vaultKey, vaultId, SSS_PRESET_SHAPE.standard)).map((s) =>
      encodeShareWords(s),
    )
    const second = (await splitVaultKey(vaultKey, vaultId, SSS_PRESET_SHAPE.standard)).map((s) =>
      encodeShareWords(s),
    )
    const checks = [first[0]!, first[1]!, second[2]!].map((k) => checkKit(k, t))
    expect(kitsSummary(checks, t)).toMatchObject({ enough: true, warning: t.mixedSetsEnough })
    expect(kitsSummary([checks[0]!, checks[2]!], t)).toMatchObject({
      enough: false,
      warning: t.mixedSetsShort,
    })
  })
})

describe('the local source and the language', () => {
  it('keeps .vault files only, once each, in the order of their paths', () => {
    const file = (name: string, path = '', size = 10) => ({
      name,
      size,
      webkitRelativePath: path,
      stream: () => new ReadableStream<Uint8Array>(),
    })
    const chosen = vaultFiles([
      file('b.vault', 'export/encrypted-files/b.vault'),
      file('README.txt', 'export/README.txt'),
      file('a.vault', 'export/encrypted-files/a.vault'),
      file('a.vault', 'export/encrypted-files/a.vault'),
      file('.vault'),
    ])
    expect(chosen.map((f) => f.webkitRelativePath)).toEqual([
      'export/encrypted-files/a.vault',
      'export/encrypted-files/b.vault',
    ])
  })

  it('orders them as the recovery tool walks a folder: each folder by the bytes of its UTF-8 names', () => {
    const file = (path: string) => ({
      name: path.slice(path.lastIndexOf('/') + 1),
      size: 10,
      webkitRelativePath: path,
      stream: () => new ReadableStream<Uint8Array>(),
    })
    const paths = [
      'x/é.vault',
      'x/a-c.vault',
      'x/Z.vault',
      'x/a/b.vault',
      'x/a.vault',
      'x/\u{1F600}.vault',
      'x/\uFF5E.vault',
    ]
    // UTF-16 order put U+1F600 (a surrogate pair) before U+FF5E and "a-c" before the folder "a".
    expect(vaultFiles(paths.map(file)).map((f) => f.webkitRelativePath)).toEqual([
      'x/Z.vault',
      'x/a/b.vault',
      'x/a-c.vault',
      'x/a.vault',
      'x/é.vault',
      'x/\uFF5E.vault',
      'x/\u{1F600}.vault',
    ])
  })

  it('speaks the browser’s first language it has words for', () => {
    expect(pageLanguage(['es-MX', 'en'])).toBe('es')
    expect(pageLanguage(['de-DE', 'en-GB'])).toBe('en')
    expect(pageLanguage(['fr'])).toBe('en')
  })
})
