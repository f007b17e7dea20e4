import { type FormEvent, useState } from 'react'
import type { VaultView } from '../../shared/ipc/vault-types'
import { vault } from '../bridge/vault-client'
import { formatDateTime } from '../display/units'
import { useWriteAccess } from '../stores/connection-store'
import { useOwnerKitFlow } from '../stores/owner-kit-store'
import { ConfirmDialog } from './ConfirmDialog'
import { ErrorNotice } from './ErrorNotice'

/** Where the vault key is: save and confirm the owner kit when it is here, import it when it is not. */
export function VaultKeyPanel({ v }: { v: VaultView }) {
  const openFlow = useOwnerKitFlow((s) => s.open)
  const { canWrite, reason } = useWriteAccess()
  const [words, setWords] = useState('')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>()
  const [replacing, setReplacing] = useState(false)

  const importKit = async (event: FormEvent) => {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    try {
      await vault().importOwnerKit({ vaultId: v.id, words })
      setWords('')
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }

  const replaceKey = async () => {
    setBusy(true)
    setError(undefined)
    try {
      await vault().replaceLostVaultKey({ vaultId: v.id })
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
      setReplacing(false)
    }
  }

  const confirmed = v.ownerKitConfirmedAt
  const volatile = v.keyOnDevice && !v.keyStorage.durable

  return (
    <div className="panel key-panel" data-testid="vault-key-panel">
      <h2>Vault key and owner kit</h2>
      {v.keyOnDevice ? (
        <>
          {volatile && (
            <div className="notice notice-warn key-volatile" data-testid="key-not-durable">
              <p>
                <strong>This computer keeps the vault key only until the app closes.</strong>{' '}
                {v.keyStorage.description}
              </p>
              <p>
                {confirmed
                  ? 'Your owner kit is confirmed, so the key can be typed back in after a restart.'
                  : 'Save the owner recovery kit and confirm it before your first upload: it is the only lasting copy of the key.'}
              </p>
            </div>
          )}
          <p>
            The key that encrypts this vault's files is on this device. The owner recovery kit holds the same
            key as words: keep it with your important papers, and you can use the vault from a new computer.
          </p>
          <p data-testid="owner-kit-status" className={confirmed ? 'text-ok' : undefined}>
            {confirmed
              ? `✓ Owner kit saved and checked on ${formatDateTime(confirmed)}.`
              : 'Owner kit not confirmed yet: after saving it, type back a few of its words to check it.'}
          </p>
          <div className="row">
            <button
              type="button"
              className={confirmed ? 'button secondary' : 'button'}
              onClick={() => openFlow(v.id)}
            >
              Owner recovery kit…
            </button>
            {!confirmed && (
              <button type="button" className="button secondary" onClick={() => openFlow(v.id, 'check')}>
                I have saved it — check the words
              </button>
            )}
          </div>
        </>
      ) : (
        <>
          <form onSubmit={importKit}>
            <p>
              This device does not hold this vault's key, so it cannot upload files or make guardian kits.
              Type the words from the vault's owner recovery kit to put the key here.
            </p>
            <label htmlFor="owner-kit-words">Words from the owner recovery kit</label>
            <textarea
              id="owner-kit-words"
              rows={3}
              value={words}
              onChange={(e) => setWords(e.target.value)}
              spellCheck={false}
            />
            <div className="row">
              <button type="submit" className="button" disabled={busy || !words.trim()}>
                {busy ? 'Checking…' : 'Import the key'}
              </button>
            </div>
          </form>
          {v.assetCount === 0 && v.state === 'active' && (
            <div className="lost-key">
              <h3>No owner kit?</h3>
              <p className="muted small">
                This vault has no files yet, so nothing is lost if it gets a new key. Guardian kits are made
                again for the new key; any kit handed out before stops working.
              </p>
              <button
                type="button"
                className="button secondary"
                onClick={() => setReplacing(true)}
                disabled={!canWrite || busy}
                title={reason ?? undefined}
              >
                Make a new key…
              </button>
            </div>
          )}
        </>
      )}
      {error !== undefined && <ErrorNotice error={error} vaultId={v.id} />}
      {replacing && (
        <ConfirmDialog
          title="Make a new key for this vault?"
          confirmLabel="Make a new key"
          danger
          busy={busy}
          onConfirm={() => void replaceKey()}
          onCancel={() => setReplacing(false)}
        >
          <p>
            Do this only if the old key is lost for good: no owner kit, and no computer that still holds it.
          </p>
          <ul className="plain-list">
            <li>A new key is made on this computer; the old owner kit no longer opens this vault.</li>
            <li>
              {v.guardianCount > 0
                ? `New kits are made for your ${v.guardianCount} guardian${v.guardianCount === 1 ? '' : 's'}: give each the new kit and ask them to destroy the old one.`
                : 'Guardian kits will be made for the new key when you add guardians.'}
            </li>
            <li>Then save and confirm the new owner kit.</li>
          </ul>
        </ConfirmDialog>
      )}
    </div>
  )
}
