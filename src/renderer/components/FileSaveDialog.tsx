import type { FormEvent } from 'react'
import { useFileActionsStore } from '../stores/file-actions-store'
import { useSettingsStore } from '../stores/settings-store'
import { format, text } from '../text'
import { ErrorNotice } from './ErrorNotice'
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
        <label htmlFor="file-save-folder">{t.folderLabel}</label>
        <p className="muted small" id="file-save-help">
          {t.folderHelp}
        </p>
        <div className="row">
          <input
            id="file-save-folder"
            type="text"
            value={folder}
            onChange={(e) => setSaveFolder(e.target.value)}
            aria-describedby="file-save-help"
            spellCheck={false}
            disabled={running}
          />
          {mode === 'electron' && (
            <button
              type="button"
              className="button secondary small"
              disabled={running}
              onClick={() => void pickSaveFolder()}
            >
              {t.chooseFolder}
            </button>
          )}
        </div>
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
