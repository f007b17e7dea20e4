import { type FormEvent, useState } from 'react'
import { vault } from '../bridge/vault-client'
import { errorView } from '../display/error-text'
import { useWriteAccess } from '../stores/connection-store'
import { useOwnerKitFlow } from '../stores/owner-kit-store'
import { useSettingsStore } from '../stores/settings-store'
import { useUploadFlowStore } from '../stores/upload-flow-store'
import { useVault } from '../stores/vaults-store'
import { ErrorNotice } from './ErrorNotice'

/** Ways to start a backup: native pickers (desktop), typed path (browser mode), and the drop hint. */
export function UploadPanel({ vaultId }: { vaultId: string }) {
  const v = useVault(vaultId)
  const mode = useSettingsStore((s) => s.appInfo?.mode)
  const { canWrite, reason } = useWriteAccess()
  const { start, busy, error, errorVaultId, lastQueued, clearError } = useUploadFlowStore()
  const openOwnerKit = useOwnerKitFlow((s) => s.open)
  // Main refused the upload until the owner kit is confirmed: said once, in the owner-kit notice.
  // (Once the kit is confirmed, the refusal is over: nothing is shown for it.)
  const kitError = error !== undefined && errorView(error).ownerKit
  const kitRefused = kitError && !v?.ownerKitConfirmedAt
  const [path, setPath] = useState('')
  const [pickError, setPickError] = useState<unknown>()
  const writable = canWrite && v?.state === 'active'

  const pick = async (kind: 'files' | 'folder') => {
    setPickError(undefined)
    try {
      const paths = await vault().pickPaths({ kind })
      if (paths.length) await start(vaultId, paths)
    } catch (e) {
      setPickError(e)
    }
  }

  const submitPath = async (event: FormEvent) => {
    event.preventDefault()
    if (!path.trim()) return
    await start(vaultId, [path.trim()])
    if (!useUploadFlowStore.getState().error) setPath('')
  }

  return (
    <div className="panel upload-panel">
      <h2>Back up files</h2>
      <div className="drop-hint" aria-hidden={mode === 'browser'}>
        {mode === 'electron'
          ? 'Drop files or folders anywhere on this window: they are encrypted here, then uploaded to this vault.'
          : 'Dropping files on the window works in the desktop app. In browser mode, type the path below; the files are still encrypted on this computer before upload.'}
      </div>
      {v && v.state !== 'active' && (
        <p className="notice notice-info">
          Files can be added while the vault is active; this vault is {v.state}.
        </p>
      )}
      {v && !v.keyOnDevice && (
        <p className="notice notice-warn">
          This device does not hold this vault's key, so it cannot encrypt files for it. Upload from the
          computer that created the vault.
        </p>
      )}
      {(kitRefused || (v?.keyOnDevice && !v.keyStorage.durable && !v.ownerKitConfirmedAt)) && (
        <div
          className={kitRefused ? 'notice notice-error' : 'notice notice-warn'}
          role={kitRefused ? 'alert' : undefined}
          data-testid="upload-needs-owner-kit"
        >
          {kitRefused && <p>{errorView(error).message}</p>}
          <p>
            <strong>Save the owner kit before the first upload.</strong> This computer keeps the vault key
            only until the app closes; the owner kit is its only lasting copy.
          </p>
          <div className="notice-actions">
            <button type="button" className="button small" onClick={() => openOwnerKit(vaultId)}>
              Save the owner kit…
            </button>
          </div>
        </div>
      )}
      {mode === 'electron' ? (
        <div className="row">
          <button
            type="button"
            className="button"
            disabled={!writable || busy}
            onClick={() => void pick('files')}
            title={reason ?? undefined}
          >
            Choose files…
          </button>
          <button
            type="button"
            className="button secondary"
            disabled={!writable || busy}
            onClick={() => void pick('folder')}
          >
            Choose a folder…
          </button>
        </div>
      ) : (
        <form className="path-form" onSubmit={submitPath}>
          <label htmlFor="upload-path">Path of a file or folder on the computer running Vault Desktop</label>
          <p className="muted small" id="upload-path-help">
            Browser mode: the browser does not reveal where dropped files live, so type the full path instead
            (for example /home/you/Documents/Taxes). Folders are backed up with everything inside.
          </p>
          <div className="row">
            <input
              id="upload-path"
              type="text"
              value={path}
              onChange={(e) => setPath(e.target.value)}
              aria-describedby="upload-path-help"
              placeholder="/home/you/Documents"
              spellCheck={false}
              disabled={!writable}
            />
            <button
              type="submit"
              className="button"
              disabled={!writable || busy || !path.trim()}
              title={reason ?? undefined}
            >
              {busy ? 'Estimating…' : 'Back up'}
            </button>
          </div>
        </form>
      )}
      {lastQueued && (
        <p className="muted small" role="status">
          Queued {lastQueued.count.toLocaleString('en-US')} file{lastQueued.count === 1 ? '' : 's'}
          {lastQueued.skipped ? `, ${lastQueued.skipped} skipped` : ''}.
        </p>
      )}
      {error !== undefined && !kitError && (
        <div>
          <ErrorNotice error={error} vaultId={errorVaultId ?? vaultId} />
          <button type="button" className="link-button small" onClick={clearError}>
            Dismiss
          </button>
        </div>
      )}
      {pickError !== undefined && <ErrorNotice error={pickError} />}
    </div>
  )
}
