import type { FormEvent } from 'react'
import { useFileActionsStore } from '../stores/file-actions-store'
import { useSettingsStore } from '../stores/settings-store'
import { format, text } from '../text'
import { ErrorNotice } from './ErrorNotice'
import { FolderField } from './FolderField'
import { ModalDialog } from './ModalDialog'
import { UntrustedName } from './UntrustedName'

const t = text.fileSave

/** "Save…" from the file library: where to, then progress (with Stop), then what was saved. */
export function FileSaveDialog() {
  const save = useFileActionsStore((s) => s.save)
  const { setSaveFolder, pickSaveFolder, startSave, cancelSave, closeSave } = useFileActionsStore.getState()
  const mode = useSettingsStore((s) => s.appInfo?.mode)
  if (!save) return null
  const { chosen, folder, running, progress, report, error } = save

  const submit = (event: FormEvent) => {
    event.preventDefault()
    void startSave()
  }

  return (
    <ModalDialog title={t.title} onClose={closeSave}>
      <form className="dialog-body" onSubmit={submit} data-testid="file-save">
        <p>{text.fileActions.chosen(chosen.kind, chosen.name, chosen.files, format.bytes(chosen.bytes))}</p>
        <p className="muted small">{t.intro}</p>
        <FolderField
          id="file-save-folder"
          label={t.folderLabel}
          help={t.folderHelp}
          value={folder}
          onChange={setSaveFolder}
          disabled={running}
          pick={mode === 'electron' ? { label: t.chooseFolder, run: () => void pickSaveFolder() } : undefined}
        />
        {running && (
          <div>
            <progress
              max={progress?.totalBytes || 1}
              value={progress?.doneBytes ?? 0}
              aria-label={t.progressLabel}
            />
            {progress && (
              <p className="muted small">
                {t.progress(progress.fileNumber, progress.fileCount, progress.doneBytes, progress.totalBytes)}
              </p>
            )}
          </div>
        )}
        {report && (
          <div
            className={`notice ${report.stopped || report.failed.length > 0 ? 'notice-warn' : 'notice-info'}`}
            role="status"
            data-testid="file-save-done"
          >
            <p>{t.done(report.saved, report.kept, report.bytes, report.folder)}</p>
            {report.stopped && <p>{report.stopped.message}</p>}
            {report.failed.length > 0 && (
              <>
                <p>{t.failedTitle(report.failed.length)}</p>
                <ul className="small">
                  {report.failed.slice(0, 10).map((f) => (
                    <li key={f.path}>
                      <UntrustedName name={f.path} />: {f.message}
                    </li>
                  ))}
                </ul>
              </>
            )}
          </div>
        )}
        {error !== undefined && <ErrorNotice error={error} />}
        <div className="dialog-actions">
          {running ? (
            <button type="button" className="button secondary" onClick={() => void cancelSave()}>
              {t.cancel}
            </button>
          ) : (
            <button type="button" className="button secondary" onClick={closeSave}>
              {t.close}
            </button>
          )}
          {!running && (!report || report.stopped || report.failed.length > 0) && (
            <button type="submit" className="button" disabled={!folder.trim()}>
              {report?.stopped ? t.resume : t.start}
            </button>
          )}
        </div>
      </form>
    </ModalDialog>
  )
}
