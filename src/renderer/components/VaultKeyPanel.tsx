import { type FormEvent, useState } from 'react'
import type { VaultView } from '../../shared/ipc/vault-types'
import { vault } from '../bridge/vault-client'
import { ErrorNotice } from './ErrorNotice'
import { OwnerKitViewer } from './KitViewer'

/** Where the vault key is: print the owner kit when it is here, import it from a kit when it is not. */
export function VaultKeyPanel({ v }: { v: VaultView }) {
  const [viewing, setViewing] = useState(false)
  const [words, setWords] = useState('')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>()

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

  return (
    <div className="panel key-panel">
      <h2>Vault key</h2>
      {v.keyOnDevice ? (
        <>
          <p>
            The key that encrypts this vault's files is on this device, in its secret store. Print the owner
            recovery kit once and keep it with your important papers: with it, you can use the vault from a
            new computer.
          </p>
          <button type="button" className="button secondary" onClick={() => setViewing(true)}>
            Owner recovery kit…
          </button>
        </>
      ) : (
        <form onSubmit={importKit}>
          <p>
            This device does not hold this vault's key, so it cannot upload files or make guardian kits. Type
            the words from the vault's owner recovery kit to put the key here.
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
      )}
      {error !== undefined && <ErrorNotice error={error} />}
      {viewing && <OwnerKitViewer vaultId={v.id} onClose={() => setViewing(false)} />}
    </div>
  )
}
