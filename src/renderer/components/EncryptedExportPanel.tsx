import { type FormEvent, useEffect, useState } from 'react'
import type { EncryptedExportProgress, EncryptedExportReport } from '../../shared/ipc/contract'
import { useEncryptedExportStore } from '../stores/encrypted-export-store'
import { useSettingsStore } from '../stores/settings-store'
import { text } from '../text'
import { ErrorNotice } from './ErrorNotice'
import { FolderField } from './FolderField'
import { useAction } from './use-action'

const t = text.encryptedExport

/** "Export an encrypted copy…": the vault's .vault files and the heirs' guide and tool into a folder. */
export function EncryptedExportPanel({ vaultId }: { vaultId: string }) {
  const mode = useSettingsStore((s) => s.appInfo?.mode)
  const [folder, setFolder] = useState('')
  const [progress, setProgress] = useState<EncryptedExportProgress>()
  const [report, setReport] = useState<EncryptedExportReport>()
  const exporting = useAction(async (to: string) => {
    setReport(undefined)
    setProgress(undefined)
    setReport(await useEncryptedExportStore.getState().exportTo(vaultId, to))
  })
  const picking = useAction(async () => {
    const chosen = await useEncryptedExportStore.getState().pickFolder()
    if (chosen) setFolder(chosen)
  })
  const busy = exporting.busy
  // The picker's failure first: it is the later one (an export run clears it).
  const error = picking.error ?? exporting.error

  useEffect(() => useEncryptedExportStore.getState().watch(vaultId, setProgress), [vaultId])

  const start = async (event: FormEvent) => {
    event.preventDefault()
    if (!folder.trim()) return
    picking.clearError()
    await exporting.run(folder.trim())
  }

  return (
    <form className="panel" onSubmit={start} data-testid="encrypted-export">
      <h2>{t.title}</h2>
      <p className="muted small">{t.intro}</p>
      <FolderField
        id="encrypted-export-folder"
        label={t.folderLabel}
        help={t.folderHelp}
        value={folder}
        onChange={setFolder}
        disabled={busy}
        pick={mode === 'electron' ? { label: t.chooseFolder, run: () => void picking.run() } : undefined}
      />
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
          {report.missing.includes('recovery-page') && <p>{t.missingPage}</p>}
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
