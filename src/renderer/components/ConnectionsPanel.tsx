import { type FormEvent, useState } from 'react'
import type { ConnectionInfo } from '../../shared/ipc/vault-types'
import { vault } from '../bridge/vault-client'
import { SECRET_STORE_TEXT } from '../screens/FirstRunScreen'
import { useConnectionStore } from '../stores/connection-store'
import { useNavigationStore } from '../stores/navigation-store'
import { useSectionTarget } from '../stores/section-target'
import { ConfirmDialog } from './ConfirmDialog'
import { ErrorNotice } from './ErrorNotice'

/** Settings → Connections: which service and key are in use; switch, replace the key, forget. */
export function ConnectionsPanel() {
  const status = useConnectionStore((s) => s.status)
  const go = useNavigationStore((s) => s.go)
  const [replacing, setReplacing] = useState<string>()
  const [newKey, setNewKey] = useState('')
  const [forgetting, setForgetting] = useState<ConnectionInfo>()
  const [adding, setAdding] = useState(false)
  const [url, setUrl] = useState('https://')
  const [key, setKey] = useState('')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>()
  useSectionTarget('connections', !!status)
  if (!status) return null

  const run = async (action: () => Promise<unknown>) => {
    setBusy(true)
    setError(undefined)
    try {
      await action()
      return true
    } catch (e) {
      setError(e)
      return false
    } finally {
      setBusy(false)
    }
  }

  const replace = async (event: FormEvent, id: string) => {
    event.preventDefault()
    if (await run(() => vault().replaceApiKey({ connectionId: id, apiKey: newKey }))) {
      setReplacing(undefined)
      setNewKey('')
    }
  }

  const add = async (event: FormEvent) => {
    event.preventDefault()
    if (await run(() => vault().connectService({ serviceUrl: url, apiKey: key }))) {
      setAdding(false)
      setKey('')
    }
  }

  return (
    <div className="panel">
      <h2 id="section-connections" tabIndex={-1}>
        Connections
      </h2>
      <p className="muted small">
        API keys are kept in {SECRET_STORE_TEXT[status.secretStore]}. This window only ever sees a key's kind
        and last four characters.
      </p>
      <p
        className={status.keyStorage.durable ? 'muted small' : 'notice notice-warn'}
        data-testid="key-storage"
      >
        {!status.keyStorage.durable && <strong>Keys are not kept safely across restarts. </strong>}
        {status.keyStorage.description}
      </p>
      {status.service?.trial && (
        <p className="notice notice-warn">
          <strong>The connection in use is a trial</strong>: its vault service runs inside this app, and heirs
          cannot reach this computer. To protect your files for real, connect to a self-hosted or remote vault
          service below (“Connect another service…”) and make your vault there.
        </p>
      )}
      {status.connections.length === 0 && (
        <p>
          Not connected.{' '}
          <button type="button" className="link-button" onClick={() => go('vaults')}>
            Set up a connection
          </button>
        </p>
      )}
      <ul className="connection-list">
        {status.connections.map((c) => (
          <li key={c.id} className={c.active ? 'connection active' : 'connection'} data-testid="connection">
            <div>
              <strong>{c.label}</strong> {c.active && <span className="pill pill-accepted">In use</span>}
              {c.local && <span className="pill">On this computer</span>}
              <div className="muted small">
                {c.serviceUrl} ·{' '}
                {c.keyKind === 'agent'
                  ? 'agent key (read and check-in only)'
                  : c.keyKind === 'human'
                    ? 'owner key'
                    : 'key'}{' '}
                …{c.keyLast4} · kept in{' '}
                {c.keyStore === 'keychain'
                  ? 'the keychain'
                  : c.keyStore === 'encrypted-file'
                    ? 'an encrypted file'
                    : 'memory'}
              </div>
            </div>
            <div className="row">
              {!c.active && (
                <button
                  type="button"
                  className="button secondary small"
                  disabled={busy}
                  onClick={() => void run(() => vault().switchConnection({ connectionId: c.id }))}
                >
                  Use this one
                </button>
              )}
              <button
                type="button"
                className="button secondary small"
                disabled={busy}
                onClick={() => setReplacing(replacing === c.id ? undefined : c.id)}
              >
                Replace key
              </button>
              <button
                type="button"
                className="button danger small"
                disabled={busy}
                onClick={() => setForgetting(c)}
              >
                Forget
              </button>
            </div>
            {replacing === c.id && (
              <form className="row" onSubmit={(e) => void replace(e, c.id)}>
                <label htmlFor={`replace-${c.id}`} className="visually-hidden">
                  New API key for {c.label}
                </label>
                <input
                  id={`replace-${c.id}`}
                  type="password"
                  value={newKey}
                  onChange={(e) => setNewKey(e.target.value)}
                  placeholder="New key: sk_human_… or sk_agent_…"
                  autoComplete="off"
                  required
                />
                <button type="submit" className="button small" disabled={busy}>
                  Check and save
                </button>
              </form>
            )}
          </li>
        ))}
      </ul>
      {adding ? (
        <form className="add-connection" onSubmit={add}>
          <label htmlFor="add-url">Service address</label>
          <input
            id="add-url"
            type="text"
            inputMode="url"
            autoComplete="url"
            spellCheck={false}
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            required
          />
          <label htmlFor="add-key">API key</label>
          <input
            id="add-key"
            type="password"
            value={key}
            onChange={(e) => setKey(e.target.value)}
            required
            autoComplete="off"
          />
          <div className="row">
            <button type="submit" className="button" disabled={busy}>
              {busy ? 'Checking…' : 'Connect'}
            </button>
            <button type="button" className="button secondary" onClick={() => setAdding(false)}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <button type="button" className="button secondary" onClick={() => setAdding(true)}>
          Connect another service…
        </button>
      )}
      {error !== undefined && <ErrorNotice error={error} />}
      {forgetting && (
        <ConfirmDialog
          title={`Forget ${forgetting.label}?`}
          confirmLabel="Forget connection"
          danger
          busy={busy}
          onConfirm={() =>
            void run(() => vault().forgetConnection({ connectionId: forgetting.id })).then(() =>
              setForgetting(undefined),
            )
          }
          onCancel={() => setForgetting(undefined)}
        >
          <p>
            The API key is deleted from this computer. Nothing changes on the service: your vaults, files and
            guardians stay.{' '}
            {forgetting.local
              ? 'The local service keeps its data; start locally again to reuse it.'
              : 'Connect again with the key to see them.'}
          </p>
        </ConfirmDialog>
      )}
    </div>
  )
}
