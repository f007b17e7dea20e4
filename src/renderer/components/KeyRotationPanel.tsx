import { useEffect, useRef, useState } from 'react'
import type { KeyRotationEstimate, KeyRotationStatus } from '../../shared/ipc/key-rotation'
import type { VaultView } from '../../shared/ipc/vault-types'
import { useWriteAccess } from '../stores/connection-store'
import { type KeyRotationControl, useKeyRotationStore } from '../stores/key-rotation-store'
import { useOwnerKitFlow } from '../stores/owner-kit-store'
import { text } from '../text'
import { ErrorNotice } from './ErrorNotice'
import { useAction } from './use-action'

/**
 * "Rotate the vault key": the cost first (and what the service's store means for the old copies),
 * then the progress of a rotation under way, then the wait for the new owner kit (the old copies stay
 * until it is confirmed, and the panel says what that leaves open), then what the owner must do with
 * the new kits. Shown in the vault key panel, and in the Guardians tab right after a guardian is removed.
 */
export function KeyRotationPanel({
  v,
  afterRemoval = false,
  onRotated,
}: {
  v: VaultView
  afterRemoval?: boolean
  /** Told once a rotation this panel watched comes to its end (what the old kits could open is gone). */
  onRotated?: () => void
}) {
  const t = text.keyRotation
  const { canWrite, reason } = useWriteAccess()
  const [status, setStatus] = useState<KeyRotationStatus>()
  const [estimate, setEstimate] = useState<KeyRotationEstimate>()
  /** Which call is on its way (one at a time), to say so on its button. */
  const [doing, setDoing] = useState<'estimate' | 'start' | KeyRotationControl>()
  const [readError, setReadError] = useState<unknown>()
  const acting = useAction(async (what: NonNullable<typeof doing>, call: () => Promise<unknown>) => {
    setDoing(what)
    setReadError(undefined)
    try {
      await call()
    } finally {
      setDoing(undefined)
    }
  })
  const busy = acting.busy ? doing : undefined
  const error = acting.error ?? readError
  const rotation = useKeyRotationStore.getState()
  const onRotatedRef = useRef(onRotated)
  onRotatedRef.current = onRotated

  useEffect(() => {
    let live = true
    const { read, watch } = useKeyRotationStore.getState()
    read(v.id)
      .then((s) => live && setStatus(s))
      .catch((e: unknown) => live && setReadError(e))
    const stop = watch((s) => {
      if (s.vaultId !== v.id) return
      setStatus((before) => {
        if (s.phase === 'done' && before?.phase !== 'done') onRotatedRef.current?.()
        return s
      })
    })
    return () => {
      live = false
      stop()
    }
  }, [v.id])

  const act = acting.run
  const readCost = () => act('estimate', async () => setEstimate(await rotation.estimate(v.id)))
  const start = (credits: number) =>
    act('start', async () => {
      setStatus(await rotation.start(v.id, credits))
      setEstimate(undefined)
    })
  const control = (what: KeyRotationControl) =>
    act(what, async () => setStatus(await rotation.control(v.id, what)))

  const writable = canWrite && v.state === 'active' && v.keyOnDevice
  const underWay = status && (status.phase === 're-encrypting' || status.phase === 'switched')
  const awaiting = status?.phase === 'awaiting-owner-kit'
  const done = status?.phase === 'done'

  return (
    <section className="key-rotation" data-testid="key-rotation" aria-labelledby={`key-rotation-${v.id}`}>
      <h3 id={`key-rotation-${v.id}`}>{t.title}</h3>
      {afterRemoval && !underWay && !awaiting && !done && (
        <p className="notice notice-warn">{t.afterRemoval}</p>
      )}
      {!underWay && !awaiting && <p className="muted small">{t.why}</p>}

      {underWay && status && <RotationProgress status={status} />}

      {underWay && status && (
        <div className="row">
          {status.running ? (
            <button
              type="button"
              className="button secondary"
              disabled={busy !== undefined}
              onClick={() => void control('pause')}
            >
              {t.pause}
            </button>
          ) : (
            <button
              type="button"
              className="button"
              disabled={busy !== undefined || !writable}
              onClick={() => void control('resume')}
              data-testid="key-rotation-resume"
            >
              {t.resume}
            </button>
          )}
          {status.phase === 're-encrypting' && !status.running && (
            <button
              type="button"
              className="button secondary danger"
              disabled={busy !== undefined}
              onClick={() => void control('abandon')}
              title={t.abandonNote}
            >
              {t.abandon}
            </button>
          )}
        </div>
      )}
      {underWay && status?.phase === 're-encrypting' && !status.running && (
        <p className="muted small">{t.abandonNote}</p>
      )}

      {awaiting && status && <AwaitingOwnerKit v={v} status={status} />}

      {done && status && <RotationDone status={status} ownerKitSaved={!!v.ownerKitConfirmedAt} />}

      {!underWay && !awaiting && !estimate && (
        <div className="row">
          <button
            type="button"
            className={done ? 'button secondary' : 'button'}
            disabled={!writable || busy !== undefined}
            title={reason ?? undefined}
            onClick={() => void readCost()}
            data-testid="key-rotation-cost"
          >
            {busy === 'estimate' ? t.checking : done ? t.rotateAgain : t.check}
          </button>
        </div>
      )}

      {!underWay && !awaiting && estimate && (
        <div className="rotation-cost" data-testid="key-rotation-estimate">
          <p>
            <strong>
              {estimate.files === 0
                ? t.empty
                : t.cost(estimate.files, estimate.encryptedBytes, estimate.credits)}
            </strong>{' '}
            {t.balance(estimate.balance)}
          </p>
          <StorageNotice estimate={estimate} />
          <ul className="plain-list small">
            <li>{t.safe}</li>
            <li>{t.after}</li>
          </ul>
          {estimate.shortBy > 0 ? (
            <p className="notice notice-warn" role="alert" data-testid="key-rotation-short">
              {t.short(estimate.shortBy)}
            </p>
          ) : (
            <div className="row">
              <button
                type="button"
                className="button danger"
                disabled={!writable || busy !== undefined}
                onClick={() => void start(estimate.credits)}
                data-testid="key-rotation-start"
              >
                {busy === 'start' ? t.starting : t.start(estimate.credits)}
              </button>
            </div>
          )}
        </div>
      )}
      {error !== undefined && <ErrorNotice error={error} vaultId={v.id} />}
    </section>
  )
}

/** What happens to the old copies, in the words of the service's store. */
function StorageNotice({ estimate }: { estimate: KeyRotationEstimate }) {
  const t = text.keyRotation
  if (estimate.storage?.permanent) {
    return (
      <p className="notice notice-warn" data-testid="key-rotation-permanent">
        {t.permanent}
      </p>
    )
  }
  if (!estimate.canDelete) return <p className="notice notice-warn">{t.noDelete}</p>
  if (!estimate.storage) return <p className="notice notice-warn">{t.unknownStorage}</p>
  return <p className="muted small">{t.deletes}</p>
}

function RotationProgress({ status }: { status: KeyRotationStatus }) {
  const t = text.keyRotation
  const { files, bytes } = status
  return (
    <div className="rotation-progress" data-testid="key-rotation-progress" aria-live="polite">
      <p>
        <strong>{t.phase[status.phase]}</strong>
      </p>
      <progress max={bytes.total || 1} value={status.phase === 'switched' ? bytes.total || 1 : bytes.done} />
      <p className="muted small">
        {t.progress(files.reencrypted, files.total - files.unreadable, bytes.done, bytes.total)}
        {status.running && status.bytesPerSecond > 0 ? ` · ${t.rate(status.bytesPerSecond)}` : ''}
      </p>
      <p className="muted small">{t.charged(status.creditsConsumed, status.estimatedCredits)}</p>
      {status.problem ? (
        <p className="notice notice-warn" role="alert" data-testid="key-rotation-problem">
          {status.problem}
        </p>
      ) : (
        !status.running && <p className="notice notice-info">{t.paused}</p>
      )}
    </div>
  )
}

/** Every file is under the new key; the old copies wait for the owner kit, and the panel asks for it. */
function AwaitingOwnerKit({ v, status }: { v: VaultView; status: KeyRotationStatus }) {
  const t = text.keyRotation
  const openFlow = useOwnerKitFlow((s) => s.open)
  return (
    <div className="notice notice-warn" role="alert" data-testid="key-rotation-awaiting-owner-kit">
      <p>
        <strong>{t.awaitingTitle}</strong>
      </p>
      <p>{t.awaiting(status.files.reencrypted, status.oldCopiesLeft)}</p>
      <p>{t.awaitingRisk}</p>
      <p>{t.kitsMade(status.kitsMade)}</p>
      {status.problem && <p className="text-warn">{status.problem}</p>}
      <p>{t.awaitingNext}</p>
      <div className="row">
        <button
          type="button"
          className="button"
          onClick={() => openFlow(v.id)}
          data-testid="key-rotation-save-new-owner-kit"
        >
          {t.saveNewOwnerKit}
        </button>
      </div>
    </div>
  )
}

function RotationDone({ status, ownerKitSaved }: { status: KeyRotationStatus; ownerKitSaved: boolean }) {
  const t = text.keyRotation
  return (
    <div className="notice notice-ok" role="status" data-testid="key-rotation-done">
      <p>
        <strong>{t.phase.done}.</strong>{' '}
        {status.oldCopiesKept > 0
          ? t.doneKept(status.files.reencrypted, status.creditsConsumed)
          : t.done(status.files.reencrypted, status.creditsConsumed)}
      </p>
      {status.oldCopiesKept > 0 && <p className="text-warn">{t.oldCopiesKept(status.oldCopiesKept)}</p>}
      {status.problem && <p className="text-warn">{status.problem}</p>}
      {status.files.unreadable > 0 && <p>{t.unreadable(status.files.unreadable)}</p>}
      <p>{t.kitsMade(status.kitsMade)}</p>
      {!ownerKitSaved && <p data-testid="key-rotation-save-owner-kit">{t.saveOwnerKit}</p>}
    </div>
  )
}
