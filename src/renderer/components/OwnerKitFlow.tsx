import { type FormEvent, useEffect, useState } from 'react'
import type { OwnerKitCheck } from '../../shared/ipc/vault-types'
import { vault } from '../bridge/vault-client'
import { useOwnerKitFlow } from '../stores/owner-kit-store'
import { useVault } from '../stores/vaults-store'
import { text } from '../text'
import { ErrorNotice } from './ErrorNotice'
import { OwnerKitViewer } from './KitViewer'
import { ModalDialog } from './ModalDialog'

const t = text.ownerKit

/**
 * Save the owner kit, then prove it was saved by typing back a few of its words. Rendered once in
 * the app; opened from the key panel, a readiness step or an upload that needs the kit first.
 */
export function OwnerKitFlow() {
  const { vaultId, step, setStep, close } = useOwnerKitFlow()
  const v = useVault(vaultId)
  if (!vaultId || !v) return null
  if (!v.keyOnDevice) {
    return (
      <SimpleDialog title={t.notHereTitle} onClose={close}>
        <p>{t.notHere}</p>
      </SimpleDialog>
    )
  }
  if (step === 'view') {
    return (
      <OwnerKitViewer
        vaultId={vaultId}
        onClose={close}
        footer={<p className="muted small">{t.viewFooter}</p>}
        next={{ label: t.saved, onClick: () => setStep('check') }}
      />
    )
  }
  return <OwnerKitCheckDialog vaultId={vaultId} onBack={() => setStep('view')} onClose={close} />
}

function SimpleDialog({
  title,
  children,
  onClose,
}: {
  title: string
  children: React.ReactNode
  onClose(): void
}) {
  return (
    <ModalDialog title={title} onClose={onClose}>
      <div className="dialog-body">{children}</div>
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onClose}>
          {t.close}
        </button>
      </div>
    </ModalDialog>
  )
}

function OwnerKitCheckDialog({
  vaultId,
  onBack,
  onClose,
}: {
  vaultId: string
  onBack(): void
  onClose(): void
}) {
  const v = useVault(vaultId)
  const [check, setCheck] = useState<OwnerKitCheck>()
  const [words, setWords] = useState<Record<number, string>>({})
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>()
  const [confirmedAt, setConfirmedAt] = useState<string | null>(null)

  // biome-ignore lint/correctness/useExhaustiveDependencies: one check per opening
  useEffect(() => {
    vault().getOwnerKitCheck({ vaultId }).then(setCheck, setError)
  }, [])

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    if (!check) return
    setBusy(true)
    setError(undefined)
    try {
      const view = await vault().confirmOwnerKit({
        vaultId,
        answers: check.positions.map((position) => ({ position, word: (words[position] ?? '').trim() })),
      })
      setConfirmedAt(view.ownerKitConfirmedAt ?? new Date().toISOString())
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }

  const complete = check?.positions.every((p) => (words[p] ?? '').trim()) ?? false

  return (
    <ModalDialog title={t.checkTitle} onClose={onClose}>
      {confirmedAt ? (
        <>
          <p className="notice notice-ok" role="status" data-testid="owner-kit-confirmed">
            {t.confirmed(confirmedAt, v?.label ?? null)}
          </p>
          <div className="dialog-actions">
            <button type="button" className="button" onClick={onClose}>
              {t.done}
            </button>
          </div>
        </>
      ) : (
        <form onSubmit={submit}>
          <p>{t.instructions}</p>
          {check && (
            <div className="word-check">
              {check.positions.map((position) => (
                <div className="field" key={position}>
                  <label htmlFor={`owner-word-${position}`}>{t.word(position, check.wordCount)}</label>
                  <input
                    id={`owner-word-${position}`}
                    type="text"
                    autoComplete="off"
                    autoCapitalize="off"
                    spellCheck={false}
                    value={words[position] ?? ''}
                    onChange={(e) => setWords((w) => ({ ...w, [position]: e.target.value }))}
                  />
                </div>
              ))}
            </div>
          )}
          {!check && error === undefined && <p className="muted">{t.choosing}</p>}
          {error !== undefined && <ErrorNotice error={error} vaultId={vaultId} />}
          <div className="dialog-actions">
            <button type="button" className="button secondary" onClick={onClose} disabled={busy}>
              {t.notNow}
            </button>
            <button type="button" className="button secondary" onClick={onBack} disabled={busy}>
              {t.showAgain}
            </button>
            <button type="submit" className="button" disabled={busy || !complete}>
              {busy ? t.checking : t.confirm}
            </button>
          </div>
        </form>
      )}
    </ModalDialog>
  )
}
