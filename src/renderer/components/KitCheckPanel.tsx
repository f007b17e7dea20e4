// "Check that you still have your kit", for a guardian on the Recovery screen: the check code is worked
// out from the kit's words on this computer (main process) and shown; with the link from the guardian
// e-mail it is confirmed with the owner's service, which receives only the code and the link's token.
import { type FormEvent, useState } from 'react'
import type { KitCheckOutcome } from '../../shared/api'
import type { KitCheckView } from '../../shared/ipc/vault-types'
import { decodeQrFromFile } from '../display/qr-image'
import { useRecoveryStore } from '../stores/recovery-store'
import { text } from '../text'
import { ErrorNotice } from './ErrorNotice'
import { useAction } from './use-action'

const t = text.recovery.kitCheck

function outcomeText(result: NonNullable<KitCheckView['result']>): string {
  const o = t
  const texts: Record<KitCheckOutcome, () => string> = {
    confirmed: () => o.confirmed(result.confirmedAt ?? new Date().toISOString()),
    'older-split': () => o.olderSplit(result.newSplitAt ?? ''),
    'other-guardian': () => o.otherGuardian,
    typo: () => o.typo,
    unknown: () => o.unknown,
    'not-registered': () => o.notRegistered,
  }
  return texts[result.outcome]()
}

export function KitCheckPanel() {
  const [words, setWords] = useState('')
  const [link, setLink] = useState('')
  const [view, setView] = useState<KitCheckView>()
  const checking = useAction(async () => {
    setView(undefined)
    setView(await useRecoveryStore.getState().checkKit(words, link.trim()))
  })
  // A photo that holds no kit: said where the check's failure would be.
  const [photoError, setPhotoError] = useState<unknown>()
  const busy = checking.busy
  const error = photoError ?? checking.error

  const run = (event: FormEvent) => {
    event.preventDefault()
    setPhotoError(undefined)
    void checking.run()
  }

  const fromImage = async (file: File | undefined) => {
    if (!file) return
    try {
      setWords(await decodeQrFromFile(file))
    } catch (e) {
      setPhotoError(e)
    }
  }

  return (
    <details className="panel kit-check-panel" data-testid="kit-check-panel">
      <summary>
        <h2>{t.title}</h2>
      </summary>
      <form onSubmit={run}>
        <p className="muted">{t.lead}</p>
        <div className="field">
          <label htmlFor="kit-check-words">{t.words}</label>
          <textarea
            id="kit-check-words"
            rows={4}
            value={words}
            spellCheck={false}
            autoComplete="off"
            onChange={(e) => {
              setWords(e.target.value)
              setView(undefined)
            }}
          />
          <div className="row">
            <label className="button secondary small file-button">
              {text.recovery.readPhoto}
              <input
                type="file"
                accept="image/*"
                className="visually-hidden"
                onChange={(e) => void fromImage(e.target.files?.[0])}
              />
            </label>
          </div>
        </div>
        <div className="field">
          <label htmlFor="kit-check-link">{t.link}</label>
          <input
            id="kit-check-link"
            type="url"
            value={link}
            placeholder={t.linkPlaceholder}
            onChange={(e) => setLink(e.target.value)}
          />
          <p className="muted small">{t.linkNote}</p>
        </div>
        <button type="submit" className="button" disabled={busy || words.trim() === ''}>
          {busy ? t.working : link.trim() ? t.confirm : t.show}
        </button>
        {error !== undefined && <ErrorNotice error={error} />}
        {view && (
          <div className="kit-check-result" role="status">
            <p>
              {t.code}:{' '}
              <strong className="kit-check-code" data-testid="kit-check-code">
                {view.code}
              </strong>
            </p>
            <p className="muted small">{t.kitOf(view.shareIndex, view.shares, view.vaultFingerprint)}</p>
            {view.result && (
              <p
                className={`notice ${view.result.outcome === 'confirmed' ? 'notice-ok' : 'notice-warn'}`}
                data-testid="kit-check-outcome"
              >
                {outcomeText(view.result)}
              </p>
            )}
          </div>
        )}
      </form>
    </details>
  )
}
