import { useState } from 'react'
import { ErrorNotice } from '../../components/ErrorNotice'
import { FileLibrary } from '../../components/FileLibrary'
import { ReadOnlyNote } from '../../components/ReadOnlyNote'
import { UploadPanel } from '../../components/UploadPanel'
import { UploadQueue } from '../../components/UploadQueue'
import { useSettingsStore } from '../../stores/settings-store'
import { useVault } from '../../stores/vaults-store'
import { text } from '../../text'

const t = text.assets

export function AssetsTab({ vaultId }: { vaultId: string }) {
  const v = useVault(vaultId)
  const realNameVaults = useSettingsStore((s) => s.settings?.realNameVaults)
  const updateSettings = useSettingsStore((s) => s.update)
  const [namesError, setNamesError] = useState<unknown>()
  // The owner's choice shows at once; the saved settings follow.
  const [namesChoice, setNamesChoice] = useState<boolean>()

  if (!v) return null

  const realNames = namesChoice ?? realNameVaults?.includes(vaultId) ?? false
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

  return (
    <div>
      <ReadOnlyNote />
      <UploadPanel vaultId={vaultId} />
      <UploadQueue vaultId={vaultId} />
      <div className="panel">
        <FileLibrary vaultId={vaultId} reloadKey={v.assetCount} />
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
