import { type FormEvent, useEffect, useState } from 'react'
import type { EncryptedExportProgress, EncryptedExportReport } from '../../shared/ipc/contract'
import { vault } from '../bridge/vault-client'
import { useSettingsStore } from '../stores/settings-store'
import { text } from '../text'
import { ErrorNotice } from './ErrorNotice'

const t = text.encryptedExport

/** "Export an encrypted copy…": the vault's .vault files and the heirs' guide and tool into a folder. */
export function EncryptedExportPanel({ vaultId }: { vaultId: string }) {
  const mode = useSettingsStore((s) => s.appInfo?.mode)
  const [folder, setFolder] = useState('')
  const [busy, setBusy] = useState(false)
  const [progress, setProgress] = useState<EncryptedExportProgress>()
  const [report, setReport] = useState<EncryptedExportReport>()
  const [error, setError] = useState<unknown>()

  useEffect(
    () =>
      vault().on.encryptedExportProgress((p) => {
        if (p.vaultId === vaultId) setProgress(p)
      }),
    [vaultId],
  )

  const pick = async () => {
    try {
      const [chosen] = await vault().pickPaths({ kind: 'output-folder' })
      if (chosen) setFolder(chosen)
    } catch (e) {
      setError(e)
    }
  }

  const start = async (event: FormEvent) => {
    event.preventDefault()
    if (!folder.trim()) return
    setBusy(true)
    setError(undefined)
    setReport(undefined)
    setProgress(undefined)
    try {
      setReport(await vault().exportEncryptedCopy({ vaultId, folder: folder.trim() }))
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }

  return (
    <form className="panel" onSubmit={start} data-testid="encrypted-export">
      <h2>{t.title}</h2>
      <p className="muted small">{t.intro}</p>
      <label htmlFor="encrypted-export-folder">{t.folderLabel}</label>
      <p className="muted small" id="encrypted-export-help">
        {t.folderHelp}
      </p>
      <div className="row">
        <input
          id="encrypted-export-folder"
          type="text"
          value={folder}
          onChange={(e) => setFolder(e.target.value)}
          aria-describedby="encrypted-export-help"
          spellCheck={false}
          disabled={busy}
        />
        {mode === 'electron' && (
          <button
            type="button"
            className="button secondary small"
            disabled={busy}
            onClick={() => void pick()}
          >
            {t.chooseFolder}
          </button>
        )}
      </div>
      <div className="row">
        <button type="submit" className="button" disabled={busy || !folder.trim()}>
          {busy ? t.exporting : t.start}
        </button>
      </div>
      {busy && progress && (
        <div>
          <progress max={progress.totalBytes || 1} value={progress.doneBytes} aria-label={t.progressLabel} />
          <p className="muted small">
            {t.progress(progress.fileNumber, progress.fileCount, progress.doneBytes, progress.totalBytes)}
          </p>
        </div>
      )}
      {report && (
        <div className="notice notice-info" role="status" data-testid="encrypted-export-done">
          <p>{t.done(report.blobCount, report.bytes, report.folder)}</p>
          {report.missing.includes('recovery-tool') && <p>{t.missingTool}</p>}
          {(report.missing.includes('recovery-guide') || report.missing.includes('format-spec')) && (
            <p>{t.missingDocs}</p>
          )}
        </div>
      )}
      {error !== undefined && <ErrorNotice error={error} />}
    </form>
  )
}
