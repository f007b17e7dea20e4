import { useEffect, useState } from 'react'
import { ASSET_CATEGORIES, type AssetCategory } from '../../../shared/api'
import type { AssetView } from '../../../shared/ipc/vault-types'
import { ErrorNotice } from '../../components/ErrorNotice'
import { ReadOnlyNote } from '../../components/ReadOnlyNote'
import { UploadPanel } from '../../components/UploadPanel'
import { UploadQueue } from '../../components/UploadQueue'
import { formatBytes, formatDateTime, plaintextBytes } from '../../display/units'
import { useAssetsStore } from '../../stores/assets-store'
import { useVault } from '../../stores/vaults-store'

const CATEGORY_LABEL: Record<AssetCategory, string> = {
  document: 'Documents',
  image: 'Images',
  video: 'Videos',
  audio: 'Audio',
  other: 'Other',
}

export function AssetsTab({ vaultId }: { vaultId: string }) {
  const v = useVault(vaultId)
  const { page, query, loading, error, load } = useAssetsStore()
  const [copied, setCopied] = useState<string>()

  // biome-ignore lint/correctness/useExhaustiveDependencies: re-read when the vault's count moves (a change made elsewhere)
  useEffect(() => {
    void load(vaultId)
  }, [load, vaultId, v?.assetCount])
  if (!v) return null

  const total = page?.total ?? 0
  const from = total === 0 ? 0 : query.offset + 1
  const to = Math.min(query.offset + query.limit, total)

  const copy = async (id: string) => {
    try {
      await navigator.clipboard.writeText(id)
      setCopied(id)
    } catch {
      setCopied(undefined)
    }
  }

  return (
    <div>
      <ReadOnlyNote />
      <UploadPanel vaultId={vaultId} />
      <UploadQueue vaultId={vaultId} />
      <div className="panel">
        <div className="table-toolbar">
          <h2>
            Files <span className="count">{total}</span>
          </h2>
          <label htmlFor="asset-category">Category</label>
          <select
            id="asset-category"
            value={query.category ?? ''}
            onChange={(e) =>
              void load(vaultId, { category: (e.target.value || null) as AssetCategory | null, offset: 0 })
            }
          >
            <option value="">All</option>
            {ASSET_CATEGORIES.map((c) => (
              <option key={c} value={c}>
                {CATEGORY_LABEL[c]}
              </option>
            ))}
          </select>
          <label htmlFor="asset-page-size">Per page</label>
          <select
            id="asset-page-size"
            value={query.limit}
            onChange={(e) => void load(vaultId, { limit: Number(e.target.value) as 50 | 100, offset: 0 })}
          >
            <option value={50}>50</option>
            <option value={100}>100</option>
          </select>
        </div>
        {error !== undefined && <ErrorNotice error={error} onRetry={() => void load(vaultId)} />}
        {page && page.assets.length === 0 ? (
          <p className="muted">
            {query.category
              ? `No ${CATEGORY_LABEL[query.category].toLowerCase()} in this vault.`
              : 'No files yet. Back up files or folders with the panel above.'}
          </p>
        ) : (
          <table className="table assets-table" aria-busy={loading}>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Category</th>
                <th scope="col" className="num">
                  Size
                </th>
                <th scope="col">Added</th>
                <th scope="col">Storage id</th>
              </tr>
            </thead>
            <tbody>
              {page?.assets.map((a) => (
                <tr key={a.id}>
                  <td
                    className="filename"
                    title={a.nameHidden ? `The service knows this file only as ${a.filename}` : a.displayName}
                  >
                    {a.displayName}
                    {a.nameHidden && <span className="muted small"> · name hidden from the service</span>}
                    {a.bundle && <BundleFiles name={a.displayName} bundle={a.bundle} />}
                  </td>
                  <td>{CATEGORY_LABEL[a.category]}</td>
                  <td className="num" title={`${formatBytes(a.sizeBytes)} stored, encrypted`}>
                    {formatBytes(a.originalBytes ?? plaintextBytes(a.sizeBytes) ?? a.sizeBytes)}
                  </td>
                  <td>{formatDateTime(a.createdAt)}</td>
                  <td>
                    <code className="storage-id" title={a.storageTxId}>
                      {a.storageTxId.slice(0, 10)}…
                    </code>{' '}
                    <button
                      type="button"
                      className="link-button small"
                      onClick={() => void copy(a.storageTxId)}
                      aria-label={`Copy storage id of ${a.displayName}`}
                    >
                      {copied === a.storageTxId ? 'Copied' : 'Copy'}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <div className="pager">
          <span className="muted small">
            {from}–{to} of {total}
          </span>
          <button
            type="button"
            className="button secondary small"
            disabled={query.offset === 0 || loading}
            onClick={() => void load(vaultId, { offset: Math.max(0, query.offset - query.limit) })}
          >
            Previous
          </button>
          <button
            type="button"
            className="button secondary small"
            disabled={to >= total || loading}
            onClick={() => void load(vaultId, { offset: query.offset + query.limit })}
          >
            Next
          </button>
        </div>
      </div>
    </div>
  )
}

/** Shown a page at a time: a bundle holds up to 4,096 files. */
const BUNDLE_PAGE = 200

/** The files packed in a bundle asset, as this computer's upload index knows them. */
function BundleFiles({ name, bundle }: { name: string; bundle: NonNullable<AssetView['bundle']> }) {
  const [open, setOpen] = useState(false)
  const [shown, setShown] = useState(BUNDLE_PAGE)
  const superseded = bundle.fileCount - bundle.files.length
  // Several bundles of one folder read alike: the first and last name tell them apart.
  const names = bundle.files.map((f) => f.relativePath.slice(f.relativePath.lastIndexOf('/') + 1)).sort()
  if (bundle.files.length === 0) {
    // This computer's index knows none of them (the list lives where they were uploaded from).
    return (
      <div className="bundle-files small muted" data-testid="bundle-superseded">
        {bundle.fileCount.toLocaleString('en-US')} file{bundle.fileCount === 1 ? '' : 's'} inside, not listed
        here: uploaded from another computer, or each replaced since by a newer upload. Recovery unpacks them.
      </div>
    )
  }
  return (
    <div className="bundle-files small">
      <button
        type="button"
        className="link-button small"
        aria-expanded={open}
        aria-label={`Files in ${name}`}
        onClick={() => setOpen(!open)}
      >
        {open ? 'Hide' : 'Show'} the {bundle.fileCount.toLocaleString('en-US')} file
        {bundle.fileCount === 1 ? '' : 's'} inside
      </button>
      {names.length > 1 && (
        <span className="muted">
          {' '}
          · {names[0]} to {names[names.length - 1]}
        </span>
      )}
      {superseded > 0 && (
        <div className="muted" data-testid="bundle-superseded">
          {superseded.toLocaleString('en-US')} of them replaced since by a newer upload; recovery gives back
          the newer copy.
        </div>
      )}
      {open && (
        <ul className="bundle-file-list" aria-label={`Files in ${name}`}>
          {bundle.files.slice(0, shown).map((f) => (
            <li key={f.relativePath}>
              <span className="filename">{f.relativePath}</span>{' '}
              <span className="muted">{formatBytes(f.sizeBytes)}</span>
            </li>
          ))}
          {bundle.files.length > shown && (
            <li>
              <button
                type="button"
                className="link-button small"
                onClick={() => setShown(shown + BUNDLE_PAGE)}
              >
                Show {Math.min(BUNDLE_PAGE, bundle.files.length - shown)} more
              </button>
            </li>
          )}
        </ul>
      )}
    </div>
  )
}
