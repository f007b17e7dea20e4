import { type FormEvent, useEffect, useState } from 'react'
import type { OwnerKitCheck } from '../../shared/ipc/vault-types'
import { useOwnerKitFlow } from '../stores/owner-kit-store'
import { useVault } from '../stores/vaults-store'
import { text } from '../text'
import { ErrorNotice } from './ErrorNotice'
import { OwnerKitViewer } from './KitViewer'
import { ModalDialog } from './ModalDialog'
import { useAction } from './use-action'

const t = text.ownerKit

/**
 * Save the owner kit, then prove it was saved by typing back a few of its words. Rendered once in
 * the app; opened from the key panel, a readiness step or an upload that needs the kit first.
 */
export function OwnerKitFlow() {
  const { vaultId, step, setStep, close, gate, confirmedBy } = useOwnerKitFlow()
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
    if (!gate?.open) return <OwnerKitGateDialog onClose={close} />
    return (
      <OwnerKitViewer
        vaultId={vaultId}
        onClose={close}
        footer={
          <>
            {confirmedBy && (
              <p className="muted small" data-testid="owner-kit-confirmed-by">
                {confirmedBy === 'system' ? t.shownAfterSystem(gate.systemName ?? '') : t.shownAfterTyped}
              </p>
            )}
            <p className="muted small">{t.viewFooter}</p>
          </>
        }
        next={{ label: t.saved, onClick: () => setStep('check') }}
      />
    )
  }
  return <OwnerKitCheckDialog vaultId={vaultId} onBack={() => setStep('view')} onClose={close} />
}

/** Before the words: the owner confirms it is them, with the system's check or by typing the vault's name. */
function OwnerKitGateDialog({ onClose }: { onClose(): void }) {
  const { gate, gateBusy, gateError, confirm } = useOwnerKitFlow()
  const [typed, setTyped] = useState('')
  const submit = (event: FormEvent) => {
    event.preventDefault()
    void confirm(gate?.method === 'typed' ? typed : undefined)
  }
  return (
    <ModalDialog title={t.gateTitle} onClose={onClose}>
      <form onSubmit={submit} data-testid="owner-kit-gate">
        <div className="dialog-body">
          <p>{t.gateLead}</p>
          {!gate && gateError === undefined && <p className="muted">{t.choosing}</p>}
          {gate?.method === 'system' && <p>{t.gateSystem(gate.systemName ?? '')}</p>}
          {gate?.method === 'typed' && (
            <div className="field">
              <label htmlFor="owner-kit-gate-name">{t.gateTypeLabel(gate.typeThis)}</label>
              <input
                id="owner-kit-gate-name"
                type="text"
                autoComplete="off"
                spellCheck={false}
                value={typed}
                onChange={(e) => setTyped(e.target.value)}
              />
              <p className="muted small">{t.gateTypedWhy}</p>
            </div>
          )}
          {gateError !== undefined && <ErrorNotice error={gateError} />}
        </div>
        <div className="dialog-actions">
          <button type="button" className="button secondary" onClick={onClose} disabled={gateBusy}>
            {t.close}
          </button>
          <button
            type="submit"
            className="button"
            disabled={!gate || gateBusy || (gate.method === 'typed' && !typed.trim())}
          >
            {gateBusy
              ? t.checking
              : gate?.method === 'system'
                ? t.gateSystemButton(gate.systemName ?? '')
                : t.gateShow}
          </button>
        </div>
      </form>
    </ModalDialog>
  )
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
  const [readError, setReadError] = useState<unknown>()
  const confirming = useAction(async (answers: { position: number; word: string }[]) => {
    const view = await useOwnerKitFlow.getState().confirmWords(vaultId, answers)
    setConfirmedAt(view.ownerKitConfirmedAt ?? new Date().toISOString())
  })
  const busy = confirming.busy
  const error = confirming.error ?? readError
  const [confirmedAt, setConfirmedAt] = useState<string | null>(null)

  // biome-ignore lint/correctness/useExhaustiveDependencies: one check per opening
  useEffect(() => {
    useOwnerKitFlow.getState().readCheck(vaultId).then(setCheck, setReadError)
  }, [])

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    if (!check) return
    await confirming.run(
      check.positions.map((position) => ({ position, word: (words[position] ?? '').trim() })),
    )
  }

  const complete = check?.positions.every((p) => (words[p] ?? '').trim()) ?? false
  // The words main found wrong (a retyped one is no longer marked).
  const wrong = new Set<number>(
    ((error as { details?: { wrongPositions?: unknown } } | undefined)?.details?.wrongPositions as
      | number[]
      | undefined) ?? [],
  )

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
                    aria-invalid={wrong.has(position) || undefined}
                    className={wrong.has(position) ? 'field-invalid' : undefined}
                    onChange={(e) => {
                      setWords((w) => ({ ...w, [position]: e.target.value }))
                      if (wrong.has(position)) confirming.clearError()
                    }}
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
