import { type ChangeEvent, type FormEvent, useRef, useState } from 'react'
import { errorView } from '../display/error-text'
import { useWriteAccess } from '../stores/connection-store'
import { useFileIntakeStore } from '../stores/file-intake-store'
import { useNavigationStore } from '../stores/navigation-store'
import { useOwnerKitFlow } from '../stores/owner-kit-store'
import { useSettingsStore } from '../stores/settings-store'
import { useUploadFlowStore } from '../stores/upload-flow-store'
import { useVault } from '../stores/vaults-store'
import { text } from '../text'
import { ErrorNotice } from './ErrorNotice'
import { useAction } from './use-action'

/** Ways to start a backup: pickers (native on the desktop, the page's in browser mode), a typed path, the drop hint. */
export function UploadPanel({ vaultId }: { vaultId: string }) {
  const v = useVault(vaultId)
  const mode = useSettingsStore((s) => s.appInfo?.mode)
  const { canWrite, reason } = useWriteAccess()
  const { start, busy, error, errorVaultId, lastQueued, clearError } = useUploadFlowStore()
  const openOwnerKit = useOwnerKitFlow((s) => s.open)
  const setTab = useNavigationStore((s) => s.setTab)
  // Main refused the upload until the owner kit is confirmed: said once, in the owner-kit notice.
  // (Once the kit is confirmed, the refusal is over: nothing is shown for it.)
  const kitError = error !== undefined && errorView(error).ownerKit
  const kitRefused = kitError && !v?.ownerKitConfirmedAt
  const [path, setPath] = useState('')
  const picking = useAction((kind: 'files' | 'folder') =>
    useUploadFlowStore.getState().pickAndStart(vaultId, kind),
  )
  const writable = canWrite && v?.state === 'active'
  const receiving = useFileIntakeStore((s) => s.receiving !== undefined)
  const filesInput = useRef<HTMLInputElement>(null)
  const folderInput = useRef<HTMLInputElement>(null)

  /** Native pickers on the desktop; the page's own (streamed to the backend like a drop) in browser mode. */
  const choose = (kind: 'files' | 'folder') => {
    if (mode === 'electron') void picking.run(kind)
    else (kind === 'files' ? filesInput : folderInput).current?.click()
  }

  /** Browser mode: the chosen File objects stream to the backend like a drop. */
  const chosen = (event: ChangeEvent<HTMLInputElement>) => {
    const files = Array.from(event.target.files ?? [])
    event.target.value = ''
    if (files.length > 0) void useFileIntakeStore.getState().receive(vaultId, files)
  }

  const submitPath = async (event: FormEvent) => {
    event.preventDefault()
    if (!path.trim()) return
    await start(vaultId, [path.trim()])
    // Kept until queued: declining the cost leaves the path (and the button) ready to try again.
    if (useUploadFlowStore.getState().lastQueued) setPath('')
  }

  return (
    <div className="panel upload-panel">
      <h2>{text.uploadPanel.title}</h2>
      <div className="drop-hint">
        {mode === 'electron' ? text.uploadPanel.dropHintDesktop : text.uploadPanel.dropHintBrowser}
      </div>
      {v && v.state !== 'active' && (
        <p className="notice notice-info">{text.uploadPanel.notActive(v.state)}</p>
      )}
      {/* One instruction, the one the failed upload row gives too: type in the owner kit here. */}
      {v && !v.keyOnDevice && (
        <div className="notice notice-warn" data-testid="upload-no-key">
          <p>{v.keyLost ? text.uploadPanel.keyLostHere : text.uploadPanel.noKeyHere}</p>
          <div className="notice-actions">
            <button type="button" className="button secondary small" onClick={() => setTab('overview')}>
              {text.uploadPanel.toVaultKey}
            </button>
          </div>
        </div>
      )}
      {(kitRefused || (v?.keyOnDevice && !v.keyStorage.durable && !v.ownerKitConfirmedAt)) && (
        <div
          className={kitRefused ? 'notice notice-error' : 'notice notice-warn'}
          role={kitRefused ? 'alert' : undefined}
          data-testid="upload-needs-owner-kit"
        >
          <p>
            <strong>{text.uploadPanel.saveKitFirst}</strong> {text.uploadPanel.saveKitWhy}
          </p>
          <div className="notice-actions">
            <button type="button" className="button small" onClick={() => openOwnerKit(vaultId)}>
              {text.uploadPanel.saveKitButton}
            </button>
          </div>
        </div>
      )}
      <div className="row">
        <button
          type="button"
          className="button"
          disabled={!writable || busy || receiving}
          onClick={() => choose('files')}
          title={reason ?? undefined}
        >
          {text.uploadPanel.chooseFiles}
        </button>
        <button
          type="button"
          className="button secondary"
          disabled={!writable || busy || receiving}
          onClick={() => choose('folder')}
        >
          {text.uploadPanel.chooseFolder}
        </button>
        {mode !== 'electron' && (
          <>
            <input
              ref={filesInput}
              type="file"
              multiple
              hidden
              onChange={chosen}
              data-testid="choose-files"
            />
            <input
              ref={folderInput}
              type="file"
              hidden
              onChange={chosen}
              data-testid="choose-folder"
              {...{ webkitdirectory: '' }}
            />
          </>
        )}
      </div>
      {mode !== 'electron' && (
        <form className="path-form" onSubmit={submitPath}>
          <label htmlFor="upload-path">{text.uploadPanel.pathLabel}</label>
          <p className="muted small" id="upload-path-help">
            {text.uploadPanel.pathHelp}
          </p>
          <div className="row">
            <input
              id="upload-path"
              type="text"
              value={path}
              onChange={(e) => setPath(e.target.value)}
              aria-describedby="upload-path-help"
              placeholder={text.uploadPanel.pathPlaceholder}
              spellCheck={false}
              disabled={!writable}
            />
            <button
              type="submit"
              className="button"
              disabled={!writable || busy || !path.trim()}
              title={reason ?? undefined}
            >
              {busy ? text.uploadPanel.estimating : text.uploadPanel.backUp}
            </button>
          </div>
        </form>
      )}
      {lastQueued && (
        <p className="muted small" role="status">
          {text.uploadPanel.queued(lastQueued.count, lastQueued.skipped)}
        </p>
      )}
      {error !== undefined && !kitError && (
        <div>
          <ErrorNotice error={error} vaultId={errorVaultId ?? vaultId} />
          <button type="button" className="link-button small" onClick={clearError}>
            {text.common.dismiss}
          </button>
        </div>
      )}
      {picking.error !== undefined && <ErrorNotice error={picking.error} />}
    </div>
  )
}
