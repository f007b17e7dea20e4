import { useEffect, useState } from 'react'
import { ASSET_CATEGORIES, type AssetCategory } from '../../../shared/api'
import type { AssetView } from '../../../shared/ipc/vault-types'
import { revealControls } from '../../../shared/untrusted-text'
import { ErrorNotice } from '../../components/ErrorNotice'
import { ReadOnlyNote } from '../../components/ReadOnlyNote'
import { UntrustedName } from '../../components/UntrustedName'
import { UploadPanel } from '../../components/UploadPanel'
import { UploadQueue } from '../../components/UploadQueue'
import { plaintextBytes } from '../../display/units'
import { useAssetsStore } from '../../stores/assets-store'
import { useSettingsStore } from '../../stores/settings-store'
import { useVault } from '../../stores/vaults-store'
import { format, text } from '../../text'

const t = text.assets
const CATEGORY_LABEL: Record<AssetCategory, string> = t.categories

export function AssetsTab({ vaultId }: { vaultId: string }) {
  const v = useVault(vaultId)
  const { page, query, loading, error, load } = useAssetsStore()
  const [copied, setCopied] = useState<string>()
  const realNameVaults = useSettingsStore((s) => s.settings?.realNameVaults)
  const updateSettings = useSettingsStore((s) => s.update)
  const [namesError, setNamesError] = useState<unknown>()
  // The owner's choice shows at once; the saved settings follow.
  const [namesChoice, setNamesChoice] = useState<boolean>()

  // biome-ignore lint/correctness/useExhaustiveDependencies: re-read when the vault's count moves (a change made elsewhere)
  useEffect(() => {
    void load(vaultId)
  }, [load, vaultId, v?.assetCount])
  if (!v) return null

  const total = page?.total ?? 0
  const from = total === 0 ? 0 : query.offset + 1
  const to = Math.min(query.offset + query.limit, total)

  const realNames = namesChoice ?? realNameVaults?.includes(vaultId) ?? false
  const sealedHere = page?.assets.some((a) => a.nameFrom === 'sealed') ?? false
  const setRealNames = async (on: boolean) => {
    setNamesError(undefined)
    setNamesChoice(on)
    const others = (realNameVaults ?? []).filter((id) => id !== vaultId)
    try {
      await updateSettings({ realNameVaults: on ? [...others, vaultId] : others })
    } catch (e) {
      setNamesError(e)
    } finally {
      setNamesChoice(undefined)
    }
  }

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
            {t.files} <span className="count">{format.number(total)}</span>
          </h2>
          <label htmlFor="asset-category">{t.category}</label>
          <select
            id="asset-category"
            value={query.category ?? ''}
            onChange={(e) =>
              void load(vaultId, { category: (e.target.value || null) as AssetCategory | null, offset: 0 })
            }
          >
            <option value="">{t.all}</option>
            {ASSET_CATEGORIES.map((c) => (
              <option key={c} value={c}>
                {CATEGORY_LABEL[c]}
              </option>
            ))}
          </select>
          <label htmlFor="asset-page-size">{t.perPage}</label>
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
          <p className="muted">{query.category ? t.noneInCategory[query.category] : t.none}</p>
        ) : (
          <table className="table assets-table" aria-busy={loading}>
            <thead>
              <tr>
                <th scope="col">{t.name}</th>
                <th scope="col">{t.category}</th>
                <th scope="col" className="num">
                  {t.size}
                </th>
                <th scope="col">{t.added}</th>
                <th scope="col">{t.storageId}</th>
              </tr>
            </thead>
            <tbody>
              {page?.assets.map((a) => (
                <tr key={a.id}>
                  <td
                    className="filename"
                    title={a.nameHidden ? t.hiddenName(a.filename) : revealControls(a.displayName)}
                  >
                    {a.nameFrom === 'sealed' && !a.bundle ? (
                      <span className="muted">{t.nameSealed}</span>
                    ) : (
                      <UntrustedName name={a.displayName} />
                    )}
                    {a.nameHidden && <span className="muted small">{t.nameHidden}</span>}
                    {a.bundle && <BundleFiles name={a.displayName} bundle={a.bundle} />}
                  </td>
                  <td>{CATEGORY_LABEL[a.category]}</td>
                  <td className="num" title={t.stored(format.bytes(a.sizeBytes))}>
                    {format.bytes(a.originalBytes ?? plaintextBytes(a.sizeBytes) ?? a.sizeBytes)}
                  </td>
                  <td>{format.dateTime(a.createdAt)}</td>
                  <td>
                    <code className="storage-id" title={a.storageTxId}>
                      {a.storageTxId.slice(0, 10)}…
                    </code>{' '}
                    <button
                      type="button"
                      className="link-button small"
                      onClick={() => void copy(a.storageTxId)}
                      aria-label={t.copyLabel(a.displayName)}
                    >
                      {copied === a.storageTxId ? t.copied : t.copy}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <div className="pager">
          <span className="muted small">{t.range(from, to, total)}</span>
          <button
            type="button"
            className="button secondary small"
            disabled={query.offset === 0 || loading}
            onClick={() => void load(vaultId, { offset: Math.max(0, query.offset - query.limit) })}
          >
            {t.previous}
          </button>
          <button
            type="button"
            className="button secondary small"
            disabled={to >= total || loading}
            onClick={() => void load(vaultId, { offset: query.offset + query.limit })}
          >
            {t.next}
          </button>
        </div>
        {sealedHere && <p className="muted small">{t.sealedNote}</p>}
        <div className="service-names" data-testid="service-names">
          <label>
            <input
              type="checkbox"
              checked={realNames}
              disabled={!realNameVaults}
              onChange={(e) => void setRealNames(e.target.checked)}
            />{' '}
            {t.realNames}
          </label>
          <p className="muted small">{realNames ? t.realNamesOn : t.realNamesOff}</p>
          {namesError !== undefined && <ErrorNotice error={namesError} />}
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
        {t.bundleUnlisted(bundle.fileCount)}
      </div>
    )
  }
  return (
    <div className="bundle-files small">
      <button
        type="button"
        className="link-button small"
        aria-expanded={open}
        aria-label={t.filesIn(name)}
        onClick={() => setOpen(!open)}
      >
        {open ? t.hideInside(bundle.fileCount) : t.showInside(bundle.fileCount)}
      </button>
      {names.length > 1 && <span className="muted">{t.nameRange(names[0]!, names[names.length - 1]!)}</span>}
      {superseded > 0 && (
        <div className="muted" data-testid="bundle-superseded">
          {t.superseded(superseded)}
        </div>
      )}
      {open && (
        <ul className="bundle-file-list" aria-label={t.filesIn(name)}>
          {bundle.files.slice(0, shown).map((f) => (
            <li key={f.relativePath}>
              <UntrustedName name={f.relativePath} className="filename" />{' '}
              <span className="muted">{format.bytes(f.sizeBytes)}</span>
            </li>
          ))}
          {bundle.files.length > shown && (
            <li>
              <button
                type="button"
                className="link-button small"
                onClick={() => setShown(shown + BUNDLE_PAGE)}
              >
                {t.showMore(Math.min(BUNDLE_PAGE, bundle.files.length - shown))}
              </button>
            </li>
          )}
        </ul>
      )}
    </div>
  )
}
