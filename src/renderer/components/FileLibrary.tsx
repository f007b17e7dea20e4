import { useVirtualizer } from '@tanstack/react-virtual'
import { useEffect, useMemo, useRef } from 'react'
import { ASSET_CATEGORIES, type AssetCategory } from '../../shared/api'
import type { VaultFileView } from '../../shared/ipc/vault-types'
import { revealControls } from '../../shared/untrusted-text'
import { type ChosenFiles, useFileActionsStore } from '../stores/file-actions-store'
import { type FileLibraryState, useFileLibraryStore } from '../stores/file-library-store'
import { type LibraryRow, libraryRows } from '../stores/library-rows'
import { format, text } from '../text'
import { ErrorNotice } from './ErrorNotice'
import { FileRemovalDialog } from './FileRemovalDialog'
import { FileSaveDialog } from './FileSaveDialog'
import { UntrustedName } from './UntrustedName'

const t = text.fileLibrary
const a = text.fileActions
const CATEGORY_LABEL: Record<AssetCategory, string> = text.assets.categories

/**
 * The files a vault holds (not the blobs holding them), a folder at a time, searchable by name and
 * filterable by category. Only the rows in view are in the page, so 50,000 files scroll smoothly.
 * `reloadKey` changes when the vault's contents change elsewhere (its asset count).
 */
export function FileLibrary({ vaultId, reloadKey }: { vaultId: string; reloadKey?: unknown }) {
  const state = useFileLibraryStore()
  const { load } = state

  // biome-ignore lint/correctness/useExhaustiveDependencies: reloadKey is the reason to read again
  useEffect(() => {
    void load(vaultId)
  }, [load, vaultId, reloadKey])

  return (
    <>
      <FileLibraryView state={state} vaultId={vaultId} />
      <FileSaveDialog />
      <FileRemovalDialog />
    </>
  )
}

/** A file, a folder ('' for the whole vault) of the library, as the dialogs name it. */
export function chosenFiles(
  vaultId: string,
  files: readonly VaultFileView[],
  target: { kind: 'file'; file: VaultFileView } | { kind: 'folder'; path: string },
): ChosenFiles {
  if (target.kind === 'file') {
    const { path, sizeBytes } = target.file
    return {
      vaultId,
      selection: { files: [path], folders: [] },
      name: path.slice(path.lastIndexOf('/') + 1),
      kind: 'file',
      files: 1,
      bytes: sizeBytes,
    }
  }
  // Every file below, whatever the category shown: the whole folder is what is saved or deleted.
  const prefix = target.path ? `${target.path}/` : ''
  let count = 0
  let bytes = 0
  for (const f of files) {
    if (prefix && !f.path.startsWith(prefix)) continue
    count++
    bytes += f.sizeBytes
  }
  return {
    vaultId,
    selection: { files: [], folders: [target.path] },
    name: target.path.slice(target.path.lastIndexOf('/') + 1),
    kind: target.path ? 'folder' : 'vault',
    files: count,
    bytes,
  }
}

type LibraryState = Pick<
  FileLibraryState,
  'vaultId' | 'list' | 'loading' | 'error' | 'filter' | 'load' | 'openFolder' | 'setSearch' | 'setCategory'
>

/** The library as the store's state draws it (apart from the store, so it can be drawn in a test). */
export function FileLibraryView({ state, vaultId }: { state: LibraryState; vaultId: string }) {
  const { list, loading, error, filter, load, openFolder, setSearch, setCategory } = state
  const current = state.vaultId === vaultId
  const files = current ? (list?.files ?? []) : []
  const rows = useMemo(() => libraryRows(files, filter), [files, filter])
  const shownFiles = useMemo(() => rows.filter((r) => r.kind === 'file').length, [rows])
  const scroller = useRef<HTMLTableElement>(null)
  const virtual = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 40,
    overscan: 12,
    getItemKey: (index) => {
      const row = rows[index]!
      return row.kind === 'folder' ? `folder:${row.path}` : `file:${row.file.path}`
    },
  })

  const crumbs = filter.folder ? filter.folder.split('/') : []
  const actions = useFileActionsStore()
  const here = () => chosenFiles(vaultId, files, { kind: 'folder', path: filter.folder })

  return (
    <div className="file-library" data-testid="file-library">
      <div className="table-toolbar">
        <h2>
          {t.title} <span className="count">{format.number(files.length)}</span>
        </h2>
        <label htmlFor="library-search">{t.search}</label>
        <input
          id="library-search"
          type="search"
          placeholder={t.searchPlaceholder}
          value={filter.search}
          onChange={(e) => setSearch(e.target.value)}
        />
        <label htmlFor="library-category">{t.category}</label>
        <select
          id="library-category"
          value={filter.category ?? ''}
          onChange={(e) => setCategory((e.target.value || null) as AssetCategory | null)}
        >
          <option value="">{t.all}</option>
          {ASSET_CATEGORIES.map((c) => (
            <option key={c} value={c}>
              {CATEGORY_LABEL[c]}
            </option>
          ))}
        </select>
      </div>
      <nav className="library-crumbs" aria-label={t.folders}>
        <button
          type="button"
          className="link-button"
          aria-current={crumbs.length === 0 ? 'location' : undefined}
          onClick={() => openFolder('')}
        >
          {t.top}
        </button>
        {crumbs.map((name, i) => {
          const path = crumbs.slice(0, i + 1).join('/')
          return (
            <span key={path}>
              <span className="muted"> / </span>
              <button
                type="button"
                className="link-button"
                aria-current={i === crumbs.length - 1 ? 'location' : undefined}
                onClick={() => openFolder(path)}
              >
                <UntrustedName name={name} />
              </button>
            </span>
          )
        })}
      </nav>
      {files.length > 0 && (
        <div className="row library-actions">
          <button type="button" className="button secondary small" onClick={() => actions.beginSave(here())}>
            {filter.folder ? a.saveFolder : a.saveAll}
          </button>
          {filter.folder && (
            <button
              type="button"
              className="button secondary small danger-text"
              onClick={() => void actions.beginRemoval(here())}
            >
              {a.removeFolder}
            </button>
          )}
        </div>
      )}
      {actions.opened && (
        <p className="muted small" role="status" data-testid="file-opened">
          {actions.opened.how === 'download'
            ? a.openedDownload(actions.opened.name)
            : a.openedDefaultApp(actions.opened.name)}
        </p>
      )}
      {actions.openError && (
        <div data-testid="file-open-failed">
          <p className="small">
            {a.openFailed(actions.openError.path.slice(actions.openError.path.lastIndexOf('/') + 1))}
          </p>
          <ErrorNotice error={actions.openError.error} />
        </div>
      )}
      {error !== undefined && <ErrorNotice error={error} onRetry={() => void load(vaultId)} />}
      {current && list?.manifestUnread && <p className="muted small">{t.manifestUnread}</p>}
      {!list && loading && <p className="muted">{t.loading}</p>}
      {list && files.length === 0 && <p className="muted">{t.none}</p>}
      {files.length > 0 && rows.length === 0 && <p className="muted">{t.noMatch}</p>}
      {rows.length > 0 && (
        <>
          <table
            className="library-table"
            aria-label={t.list}
            aria-rowcount={rows.length + 1}
            aria-busy={loading}
            ref={scroller}
          >
            <thead>
              <tr className="library-row library-head" aria-rowindex={1}>
                <th scope="col">{t.name}</th>
                <th scope="col" className="library-wide">
                  {t.category}
                </th>
                <th scope="col" className="num">
                  {t.size}
                </th>
                <th scope="col" className="library-wide">
                  {t.added}
                </th>
                <th scope="col" className="library-wide">
                  {t.blob}
                </th>
                <th scope="col">{a.actions}</th>
              </tr>
            </thead>
            <tbody style={{ height: virtual.getTotalSize() }}>
              {virtual.getVirtualItems().map((v) => {
                const row = rows[v.index]!
                return (
                  <tr
                    key={v.key}
                    ref={virtual.measureElement}
                    data-index={v.index}
                    // Only the rows in view exist in the page: say where they sit in the whole table.
                    aria-rowindex={v.index + 2}
                    className="library-row"
                    data-testid={row.kind === 'folder' ? 'library-folder' : 'library-file'}
                    style={{ transform: `translateY(${v.start}px)` }}
                  >
                    <FileLibraryRow
                      row={row}
                      searching={filter.search.trim() !== ''}
                      openFolder={openFolder}
                      opening={actions.opening?.path}
                      act={(kind, target) => {
                        const chosen = chosenFiles(vaultId, files, target)
                        if (kind === 'open' && target.kind === 'file')
                          void actions.open(vaultId, target.file.path)
                        else if (kind === 'save') actions.beginSave(chosen)
                        else if (kind === 'remove') void actions.beginRemoval(chosen)
                      }}
                    />
                  </tr>
                )
              })}
            </tbody>
          </table>
          {(filter.search.trim() !== '' || filter.category) && (
            <p className="muted small">{t.shown(shownFiles, files.length)}</p>
          )}
        </>
      )}
      {current && list && list.unnamedBlobs > 0 && (
        <p className="muted small">{t.unnamedBlobs(list.unnamedBlobs)}</p>
      )}
    </div>
  )
}

type RowTarget = { kind: 'file'; file: VaultFileView } | { kind: 'folder'; path: string }

/** One row's cells: a folder to open, or a file with the blob that holds it, and what can be done with it. */
export function FileLibraryRow({
  row,
  searching,
  openFolder,
  opening,
  act,
}: {
  row: LibraryRow
  searching: boolean
  openFolder: (folder: string) => void
  /** The path of the file being opened, if one is. */
  opening?: string
  act?: (kind: 'open' | 'save' | 'remove', target: RowTarget) => void
}) {
  const target: RowTarget =
    row.kind === 'folder' ? { kind: 'folder', path: row.path } : { kind: 'file', file: row.file }
  const actionCell = act && (
    <td className="library-row-actions">
      {row.kind === 'file' && (
        <button
          type="button"
          className="link-button"
          aria-label={a.openLabel(row.name)}
          disabled={opening !== undefined}
          onClick={() => act('open', target)}
        >
          {opening === row.file.path ? a.opening : a.open}
        </button>
      )}
      <button
        type="button"
        className="link-button"
        aria-label={a.saveLabel(row.name)}
        onClick={() => act('save', target)}
      >
        {a.save}
      </button>
      <button
        type="button"
        className="link-button danger-text"
        aria-label={a.removeLabel(row.name)}
        onClick={() => act('remove', target)}
      >
        {a.remove}
      </button>
    </td>
  )
  if (row.kind === 'folder') {
    return (
      <>
        <td className="filename" colSpan={2}>
          <button
            type="button"
            className="link-button library-folder-name"
            aria-label={t.folderLabel(row.name)}
            onClick={() => openFolder(row.path)}
          >
            <span className="folder-icon" aria-hidden="true" /> <UntrustedName name={row.name} />
          </button>
        </td>
        <td className="muted small library-folder-summary" colSpan={3}>
          {t.folderSummary(row.files, format.bytes(row.sizeBytes))}
        </td>
        {actionCell}
      </>
    )
  }
  const { file } = row
  return (
    <>
      <td className="filename" title={revealControls(file.path)}>
        <UntrustedName name={row.name} />
        {searching && row.folder && (
          <span className="muted small library-in-folder">
            {' '}
            <UntrustedName name={row.folder} />
          </span>
        )}
      </td>
      <td className="library-wide">{CATEGORY_LABEL[file.category]}</td>
      <td className="num">{format.bytes(file.sizeBytes)}</td>
      <td className="library-wide" title={file.from === 'manifest' ? t.fromManifest : undefined}>
        {format.dateTime(file.addedAt)}
      </td>
      <td className="library-wide">
        {file.blob ? (
          <>
            <code className="storage-id" title={t.blobTitle(file.blob.storageTxId)}>
              {file.blob.storageTxId.slice(0, 10)}…
            </code>
            {file.blob.bundle && <span className="muted small"> {t.bundle}</span>}
            {file.blob.nameHidden && (
              <span className="muted small" title={t.hiddenName(file.blob.serviceName)}>
                {t.nameHidden}
              </span>
            )}
          </>
        ) : (
          <span className="muted small" title={t.noBlobTitle}>
            {t.noBlob}
          </span>
        )}
      </td>
      {actionCell}
    </>
  )
}
