import { type FormEvent, useState } from 'react'
import type { VaultView } from '../../shared/ipc/vault-types'
import { useWriteAccess } from '../stores/connection-store'
import { useOwnerKitFlow } from '../stores/owner-kit-store'
import { text } from '../text'
import { ConfirmDialog } from './ConfirmDialog'
import { ErrorNotice } from './ErrorNotice'
import { KeyRotationPanel } from './KeyRotationPanel'
import { useAction } from './use-action'
import { useConfirmedAction } from './use-confirmed-action'

/** Where the vault key is: save and confirm the owner kit when it is here, import it when it is not. */
export function VaultKeyPanel({ v }: { v: VaultView }) {
  const openFlow = useOwnerKitFlow((s) => s.open)
  const { canWrite, reason } = useWriteAccess()
  const [words, setWords] = useState('')
  const importing = useAction(async () => {
    await useOwnerKitFlow.getState().importKit(v.id, words)
    setWords('')
  })
  const { error } = importing
  const replace = useConfirmedAction(() => useOwnerKitFlow.getState().replaceLostKey(v.id))
  const working = importing.busy || replace.busy

  const importKit = (event: FormEvent) => {
    event.preventDefault()
    void importing.run()
  }

  const t = text.vaultKey
  const confirmed = v.ownerKitConfirmedAt
  const volatile = v.keyOnDevice && !v.keyStorage.durable

  return (
    <div className="panel key-panel" data-testid="vault-key-panel">
      <h2>{t.title}</h2>
      {v.keyOnDevice ? (
        <>
          {volatile && (
            <div className="notice notice-warn key-volatile" data-testid="key-not-durable">
              <p>
                <strong>{t.volatile}</strong> {v.keyStorage.description}
              </p>
              <p>{confirmed ? t.volatileConfirmed : t.volatileUnconfirmed}</p>
            </div>
          )}
          <p>{t.onDevice}</p>
          <p data-testid="owner-kit-status" className={confirmed ? 'text-ok' : undefined}>
            {confirmed ? t.confirmed(confirmed) : t.notConfirmed}
          </p>
          <div className="row">
            <button
              type="button"
              className={confirmed ? 'button secondary' : 'button'}
              onClick={() => openFlow(v.id)}
            >
              {t.kit}
            </button>
            {!confirmed && (
              <button type="button" className="button secondary" onClick={() => openFlow(v.id, 'check')}>
                {t.checkWords}
              </button>
            )}
          </div>
          <KeyRotationPanel v={v} />
        </>
      ) : (
        <>
          <form onSubmit={importKit}>
            {v.keyLost ? (
              <div className="notice notice-warn" data-testid="key-lost" role="alert">
                <p>
                  <strong>{t.lost}</strong> {t.lostFrom[v.keyLost.keptIn]}
                </p>
                <p>{t.lostFingerprint(v.keyLost.fingerprint)}</p>
              </div>
            ) : (
              <p>{t.notOnDevice}</p>
            )}
            <label htmlFor="owner-kit-words">{t.words}</label>
            <textarea
              id="owner-kit-words"
              rows={3}
              value={words}
              onChange={(e) => setWords(e.target.value)}
              spellCheck={false}
            />
            <div className="row">
              <button type="submit" className="button" disabled={working || !words.trim()}>
                {working ? t.checking : t.import}
              </button>
            </div>
          </form>
          {v.assetCount === 0 && v.state === 'active' && (
            <div className="lost-key">
              <h3>{t.noKit}</h3>
              <p className="muted small">{t.noFiles}</p>
              <button
                type="button"
                className="button secondary"
                onClick={replace.ask}
                disabled={!canWrite || working}
                title={reason ?? undefined}
              >
                {t.newKey}
              </button>
            </div>
          )}
        </>
      )}
      {error !== undefined && <ErrorNotice error={error} vaultId={v.id} />}
      {replace.error !== undefined && <ErrorNotice error={replace.error} vaultId={v.id} />}
      {replace.confirming && (
        <ConfirmDialog
          title={t.confirmTitle}
          confirmLabel={t.confirm}
          danger
          busy={replace.busy}
          onConfirm={() => void replace.confirm()}
          onCancel={replace.cancel}
        >
          <p>{t.onlyIfLost}</p>
          <ul className="plain-list">
            <li>{t.oldKitStops}</li>
            <li>{t.newGuardianKits(v.guardianCount)}</li>
            <li>{t.thenSave}</li>
          </ul>
        </ConfirmDialog>
      )}
    </div>
  )
}
