// The file library shows files, not blobs: folders to open, a search that finds a file inside a
// bundle wherever it sits, a category filter, and each file's size, date and the blob holding it.
import { createElement, type FunctionComponent } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import {
  inNaturalOrder,
  type LibraryFilter,
  type LibraryRow,
  libraryRows,
} from '../../src/renderer/stores/library-rows'
import type { VaultFileList, VaultFileView } from '../../src/shared/ipc/vault-types'

// The components are loaded at run time: the Node typecheck of test/ has no JSX or DOM.
const components = '../../src/renderer/components'
const { FileLibraryView, FileLibraryRow } = (await import(`${components}/FileLibrary.tsx`)) as {
  FileLibraryView: FunctionComponent<{ vaultId: string; state: LibraryState }>
  FileLibraryRow: FunctionComponent<{ row: LibraryRow; searching: boolean; openFolder: (f: string) => void }>
}

const bundleBlob = {
  assetId: 'b1',
  storageTxId: 'tx-bundle-0123456789',
  bundle: true,
  serviceName: 'file-00aa11bb22cc33dd.vault',
  nameHidden: true,
}

function file(path: string, category: VaultFileView['category'], sizeBytes = 1000): VaultFileView {
  return {
    path,
    sizeBytes,
    category,
    addedAt: '2026-11-02T09:00:00.000Z',
    blob: bundleBlob,
    from: 'this-computer',
  }
}

const files = [
  file('Papers/notes.txt', 'document', 30),
  file('Papers/photo.jpg', 'image', 900),
  file('Papers/tax/2025.pdf', 'document', 120),
  file('Videos/wedding.mp4', 'video', 5000),
  file('readme.txt', 'document', 10),
]

const shape = (rows: LibraryRow[]) =>
  rows.map((r) =>
    r.kind === 'folder' ? `dir ${r.path} (${r.files}, ${r.sizeBytes})` : `file ${r.file.path}`,
  )

describe('libraryRows', () => {
  it('at the top: the folders with what they hold, then the files there', () => {
    expect(shape(libraryRows(files, { folder: '', search: '', category: null }))).toEqual([
      'dir Papers (3, 1050)',
      'dir Videos (1, 5000)',
      'file readme.txt',
    ])
  })

  it('inside a folder: its subfolders and its own files', () => {
    expect(shape(libraryRows(files, { folder: 'Papers', search: '', category: null }))).toEqual([
      'dir Papers/tax (1, 120)',
      'file Papers/notes.txt',
      'file Papers/photo.jpg',
    ])
  })

  it('a search finds a file in a subfolder by name (any case), with its folder', () => {
    const rows = libraryRows(files, { folder: '', search: ' 2025.PDF', category: null })
    expect(shape(rows)).toEqual(['file Papers/tax/2025.pdf'])
    expect(rows[0]).toMatchObject({ name: '2025.pdf', folder: 'Papers/tax' })
    // Only the name is searched, not the folders above it.
    expect(libraryRows(files, { folder: '', search: 'papers', category: null })).toEqual([])
  })

  it('the category keeps only its files, and folders count only those', () => {
    expect(shape(libraryRows(files, { folder: '', search: '', category: 'image' }))).toEqual([
      'dir Papers (1, 900)',
    ])
  })

  it('files and folders come in natural order: IMG_2 before IMG_10, Letters before photos', () => {
    const mixed = ['photos/IMG_10.jpg', 'photos/IMG_2.jpg', 'Letters/a.txt', 'photos/IMG_1.jpg'].map((p) =>
      file(p, 'image'),
    )
    const sorted = inNaturalOrder(mixed)
    expect(sorted.map((f) => f.path)).toEqual([
      'Letters/a.txt',
      'photos/IMG_1.jpg',
      'photos/IMG_2.jpg',
      'photos/IMG_10.jpg',
    ])
    expect(shape(libraryRows(sorted, { folder: 'photos', search: '', category: null }))).toEqual([
      'file photos/IMG_1.jpg',
      'file photos/IMG_2.jpg',
      'file photos/IMG_10.jpg',
    ])
  })

  it('50,000 files are grouped in well under a keystroke', () => {
    const many = Array.from({ length: 50_000 }, (_, i) =>
      file(`F${i % 50}/sub${i % 7}/file-${i}.txt`, 'document'),
    )
    const started = performance.now()
    const top = libraryRows(many, { folder: '', search: '', category: null })
    const found = libraryRows(many, { folder: '', search: 'file-49999', category: null })
    expect(top).toHaveLength(50)
    expect(shape(found)).toEqual(['file F49/sub5/file-49999.txt'])
    expect(performance.now() - started).toBeLessThan(500)
  })
})

describe('FileLibraryRow', () => {
  it('a file in a bundle: its name, folder when searching, category, size and the blob that holds it', () => {
    const [row] = libraryRows(files, { folder: '', search: '2025', category: null })
    const html = renderToStaticMarkup(
      createElement(
        'table',
        null,
        createElement(
          'tbody',
          null,
          createElement(
            'tr',
            null,
            createElement(FileLibraryRow, { row: row!, searching: true, openFolder: () => {} }),
          ),
        ),
      ),
    )
    expect(html).toContain('2025.pdf')
    expect(html).toContain('Papers/tax')
    expect(html).toContain('Documents')
    expect(html).toContain('120 B')
    expect(html).toContain('tx-bundle-…')
    expect(html).toContain('bundle')
    expect(html).toContain('name hidden')
    expect(html).toContain('file-00aa11bb22cc33dd.vault')
  })

  it('a folder is a button that says what it holds', () => {
    const [row] = libraryRows(files, { folder: '', search: '', category: null })
    const html = renderToStaticMarkup(
      createElement(
        'table',
        null,
        createElement(
          'tbody',
          null,
          createElement(
            'tr',
            null,
            createElement(FileLibraryRow, { row: row!, searching: false, openFolder: () => {} }),
          ),
        ),
      ),
    )
    expect(html).toContain('aria-label="Open folder Papers"')
    expect(html).toContain('3 files')
  })
})

/** The store's state the view draws (the store itself reaches the bridge, which needs a page). */
interface LibraryState {
  vaultId: string | null
  list: VaultFileList | undefined
  loading: boolean
  error: unknown
  filter: LibraryFilter
  load(vaultId: string): Promise<void>
  openFolder(folder: string): void
  setSearch(search: string): void
  setCategory(category: LibraryFilter['category']): void
}

/** The library drawn from this state of the store. */
function draw(state: Partial<LibraryState>): string {
  const base: LibraryState = {
    vaultId: 'v1',
    list: undefined,
    loading: false,
    error: undefined,
    filter: { folder: '', search: '', category: null },
    load: async () => {},
    openFolder: () => {},
    setSearch: () => {},
    setCategory: () => {},
  }
  return renderToStaticMarkup(createElement(FileLibraryView, { vaultId: 'v1', state: { ...base, ...state } }))
}

describe('FileLibrary', () => {
  it('shows the count, the path to the folder open, and what is not listed', () => {
    const list: VaultFileList = { files, unnamedBlobs: 2, manifestUnread: true }
    const html = draw({
      vaultId: 'v1',
      list,
      loading: false,
      error: undefined,
      filter: { folder: 'Papers/tax', search: '', category: 'document' },
    })
    expect(html).toContain('<span class="count">5</span>')
    expect(html).toMatch(/All files.*Papers.*tax/s)
    expect(html).toContain('aria-current="location"')
    expect(html).toContain('2 stored blobs hold files uploaded from another computer')
    expect(html).toContain('vault manifest could not be read')
    expect(html).toContain('1 shown of 5 files')
  })

  it('counts what is shown only while a search or a category narrows the list', () => {
    const html = draw({ list: { files, unnamedBlobs: 0, manifestUnread: false } })
    // The rows themselves are drawn in view only (no scroll area here): the table is there.
    expect(html).toContain('<table')
    expect(html).not.toContain('shown of')
  })

  it('says when nothing matches, rather than showing an empty table', () => {
    const html = draw({
      vaultId: 'v1',
      list: { files, unnamedBlobs: 0, manifestUnread: false },
      filter: { folder: '', search: 'nothing-like-this', category: null },
    })
    expect(html).toContain('No file here matches')
    expect(html).not.toContain('<table')
  })
})
