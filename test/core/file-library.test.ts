// The file library lists files, not blobs: a bundle's members and a lone file from this computer's
// upload index, files from another computer from the vault manifest, and blobs that told their name.
import { describe, expect, it } from 'vitest'
import { createFileLibraryHandlers } from '../../src/main/core/ipc/file-library-handlers'
import { blobsToSave } from '../../src/main/core/ipc/file-save-handlers'
import { dispatch, type HandlerTable } from '../../src/main/core/ipc/handler-table'
import { fileLibrary, selectedFiles } from '../../src/main/core/uploads/file-library'
import type { UploadIndexEntry } from '../../src/main/core/uploads/upload-records'
import type { VaultSession } from '../../src/main/core/vault-session'
import type { Asset } from '../../src/shared/api'

function asset(id: string, metadata: Record<string, unknown>, extra: Partial<Asset> = {}): Asset {
  return {
    id,
    filename: `file-${id}.vault`,
    contentType: 'application/octet-stream',
    sizeBytes: 5000,
    category: 'other',
    storageTxId: `tx-${id}`,
    createdAt: '2026-11-01T10:00:00.000Z',
    ...extra,
    metadata,
  } as Asset
}

function indexed(relativePath: string, assetId: string, size = 100): UploadIndexEntry {
  return {
    vaultId: 'v1',
    path: `/home/owner/${relativePath}`,
    relativePath,
    size,
    mtimeMs: 1,
    assetId,
    uploadedAt: '2026-11-02T09:00:00.000Z',
  }
}

const bundle = asset('b1', { bundle: true, fileCount: 3, nameSealedInside: true, manifest: true })
const lone = asset('a1', { nameSealedInside: true })

describe('fileLibrary', () => {
  it('lists the members of a bundle and a lone file, each with the blob that holds it', () => {
    const list = fileLibrary({
      assets: [bundle, lone],
      uploadedHere: [
        indexed('Papers/tax/2025.pdf', 'b1', 120),
        indexed('Papers/notes.txt', 'b1', 30),
        indexed('Papers/photo.jpg', 'b1', 900),
        indexed('Videos/wedding.mp4', 'a1', 1_600_000_000),
      ],
      elsewhere: [],
    })
    expect(list.files.map((f) => f.path)).toEqual([
      'Papers/notes.txt',
      'Papers/photo.jpg',
      'Papers/tax/2025.pdf',
      'Videos/wedding.mp4',
    ])
    const pdf = list.files.find((f) => f.path === 'Papers/tax/2025.pdf')!
    expect(pdf).toMatchObject({
      sizeBytes: 120,
      category: 'document',
      from: 'this-computer',
      addedAt: '2026-11-02T09:00:00.000Z',
      blob: {
        assetId: 'b1',
        storageTxId: 'tx-b1',
        bundle: true,
        serviceName: 'file-b1.vault',
        nameHidden: true,
      },
    })
    expect(list.files.find((f) => f.path === 'Papers/photo.jpg')!.category).toBe('image')
    expect(list.files.find((f) => f.path === 'Videos/wedding.mp4')).toMatchObject({
      category: 'video',
      blob: { assetId: 'a1', bundle: false },
    })
    expect(list.unnamedBlobs).toBe(0)
  })

  it('leaves out index rows whose blob the service no longer lists, and a manifest sent alone', () => {
    const list = fileLibrary({
      assets: [asset('m1', { manifest: true })],
      uploadedHere: [indexed('gone.txt', 'deleted-elsewhere')],
      elsewhere: [],
    })
    expect(list.files).toEqual([])
    expect(list.unnamedBlobs).toBe(0)
  })

  it('on another computer lists the files from the vault manifest, with the blob when it told its name', () => {
    const list = fileLibrary({
      assets: [bundle, asset('r1', { relativePath: 'Letters/to-anna.docx', plaintextBytes: 77 })],
      uploadedHere: [],
      elsewhere: [
        { path: 'Letters/to-anna.docx', size: 77, sha256: 'a'.repeat(64), writtenAtMs: Date.UTC(2026, 9, 5) },
        { path: 'Papers/will.pdf', size: 4096, sha256: 'b'.repeat(64), writtenAtMs: Date.UTC(2026, 9, 6) },
      ],
    })
    expect(list.files).toEqual([
      {
        path: 'Letters/to-anna.docx',
        sizeBytes: 77,
        category: 'document',
        addedAt: '2026-10-05T00:00:00.000Z',
        blob: {
          assetId: 'r1',
          storageTxId: 'tx-r1',
          bundle: false,
          serviceName: 'file-r1.vault',
          nameHidden: false,
        },
        from: 'manifest',
      },
      {
        path: 'Papers/will.pdf',
        sizeBytes: 4096,
        category: 'document',
        addedAt: '2026-10-06T00:00:00.000Z',
        from: 'manifest',
      },
    ])
  })

  it('counts blobs with sealed names no list accounts for, and lists a blob that told its name', () => {
    const list = fileLibrary({
      assets: [bundle, lone, asset('r2', { relativePath: 'Music/song.mp3' }, { category: 'audio' })],
      uploadedHere: [],
      elsewhere: [],
      manifestUnread: true,
    })
    expect(list.unnamedBlobs).toBe(2)
    expect(list.manifestUnread).toBe(true)
    expect(list.files).toEqual([
      {
        path: 'Music/song.mp3',
        sizeBytes: 5000,
        category: 'audio',
        addedAt: '2026-11-01T10:00:00.000Z',
        blob: {
          assetId: 'r2',
          storageTxId: 'tx-r2',
          bundle: false,
          serviceName: 'file-r2.vault',
          nameHidden: false,
        },
        from: 'service',
      },
    ])
  })

  it('a newer copy from another computer replaces this computer’s older one of the same path', () => {
    const list = fileLibrary({
      assets: [lone],
      uploadedHere: [indexed('Videos/wedding.mp4', 'a1', 10)],
      elsewhere: [
        { path: 'Videos/wedding.mp4', size: 20, sha256: 'c'.repeat(64), writtenAtMs: Date.UTC(2026, 11, 1) },
      ],
    })
    expect(list.files).toHaveLength(1)
    expect(list.files[0]).toMatchObject({ sizeBytes: 20, from: 'manifest' })
  })
})

describe('taking back a file that changed and went up again from another computer', () => {
  const told = (id: string, createdAt: string) =>
    asset(id, { relativePath: 'Letters/will.docx' }, { filename: 'will.docx', createdAt })
  const older = told('r1', '2026-10-01T10:00:00.000Z')
  const newer = told('r2', '2026-10-05T10:00:00.000Z')
  const newestSha = 'b'.repeat(64)
  const elsewhere = [
    {
      path: 'Letters/will.docx',
      size: 20,
      sha256: newestSha,
      writtenAtMs: Date.parse('2026-10-05T09:59:00.000Z'),
    },
  ]

  /** The blobs a save of Letters/will.docx reads, and what it checks each file against. */
  const willSaved = (assets: Asset[], uploadedHere: UploadIndexEntry[]) => {
    const library = fileLibrary({ assets, uploadedHere, elsewhere })
    const chosen = selectedFiles(library.files, { files: ['Letters/will.docx'], folders: [] })
    return blobsToSave(chosen, library.files, assets, new Map(elsewhere.map((e) => [e.path, e.sha256])))
  }

  it('reads the newest blob that told the path, whatever order the service lists them in', () => {
    for (const assets of [
      [older, newer],
      [newer, older],
    ]) {
      const library = fileLibrary({ assets, uploadedHere: [], elsewhere })
      expect(library.files).toMatchObject([
        { path: 'Letters/will.docx', from: 'manifest', blob: { assetId: 'r2' } },
      ])
    }
  })

  it("checks what is saved against the manifest's content, so a wrong blob is never written as the file", () => {
    expect(willSaved([newer, older], [])).toEqual([
      {
        assetId: 'r2',
        encryptedBytes: 5000,
        files: [{ path: 'Letters/will.docx', saveAs: 'will.docx', sha256: newestSha }],
      },
    ])
  })

  it("a file of this computer's own newer upload is not held to an older manifest entry", () => {
    const here = asset('h1', {}, { createdAt: '2026-10-07T10:00:00.000Z' })
    const blobs = willSaved(
      [here, newer],
      [{ ...indexed('Letters/will.docx', 'h1', 30), uploadedAt: '2026-10-07T10:00:00.000Z' }],
    )
    expect(blobs.map((b) => ({ id: b.assetId, files: b.files }))).toEqual([
      { id: 'h1', files: [{ path: 'Letters/will.docx', saveAs: 'will.docx' }] },
    ])
  })
})

describe('files:list over the bridge', () => {
  const session = async () =>
    ({
      uploads: {
        knownFiles: async () => ({
          uploadedHere: [indexed('Papers/notes.txt', 'b1', 30)],
          elsewhere: [],
          manifestUnread: false,
        }),
      },
      vaults: { listAllAssets: async () => [bundle] },
    }) as unknown as VaultSession
  const handlers = createFileLibraryHandlers(session) as unknown as HandlerTable

  it('answers a valid request with the files', async () => {
    const answer = await dispatch(handlers, 'files:list', { vaultId: 'v1' })
    expect(answer).toMatchObject({
      ok: true,
      value: { files: [{ path: 'Papers/notes.txt', sizeBytes: 30 }] },
    })
  })

  it('refuses a request the schema does not allow, before anything is read', async () => {
    for (const bad of [{}, { vaultId: '' }, { vaultId: 'v1', folder: '../..' }, 'v1']) {
      const answer = await dispatch(handlers, 'files:list', bad)
      expect(answer).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } })
    }
  })
})
