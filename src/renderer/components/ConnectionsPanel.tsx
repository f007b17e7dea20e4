import { type FormEvent, useState } from 'react'
import type { ConnectionInfo } from '../../shared/ipc/vault-types'
import { useConnectionStore } from '../stores/connection-store'
import { useNavigationStore } from '../stores/navigation-store'
import { useSectionTarget } from '../stores/section-target'
import { text } from '../text'
import { ConfirmDialog } from './ConfirmDialog'
import { ErrorNotice } from './ErrorNotice'
import { useAction } from './use-action'

const t = text.connections

/** Settings → Connections: which service and key are in use; switch, replace the key, forget. */
export function ConnectionsPanel() {
  const status = useConnectionStore((s) => s.status)
  const go = useNavigationStore((s) => s.go)
  const [replacing, setReplacing] = useState<string>()
  /** The connection whose key was just checked and saved, to say so where the form was. */
  const [replaced, setReplaced] = useState<string>()
  const [newKey, setNewKey] = useState('')
  const [forgetting, setForgetting] = useState<ConnectionInfo>()
  const [adding, setAdding] = useState(false)
  const [url, setUrl] = useState('https://')
  const [key, setKey] = useState('')
  // One action at a time in this panel, and one place for its failure.
  const { busy, error, run } = useAction((action: () => Promise<unknown>) => action())
  const connections = useConnectionStore.getState()
  useSectionTarget('connections', !!status)
  if (!status) return null

  const replace = async (event: FormEvent, id: string) => {
    event.preventDefault()
    if (await run(() => connections.replaceApiKey(id, newKey))) {
      setReplacing(undefined)
      setNewKey('')
      setReplaced(id)
    }
  }

  const add = async (event: FormEvent) => {
    event.preventDefault()
    if (await run(() => connections.connectService(url, key))) {
      setAdding(false)
      setKey('')
    }
  }

  return (
    <div className="panel">
      <h2 id="section-connections" tabIndex={-1}>
        {t.title}
      </h2>
      <p className="muted small">{t.keysKeptIn(text.firstRun.secretStore[status.secretStore])}</p>
      <p
        className={status.keyStorage.durable ? 'muted small' : 'notice notice-warn'}
        data-testid="key-storage"
      >
        {!status.keyStorage.durable && <strong>{t.notDurable} </strong>}
        {status.keyStorage.description}
      </p>
      {status.service?.trial && (
        <p className="notice notice-warn">
          <strong>{t.trialTitle}</strong>
          {t.trialNote}
        </p>
      )}
      {status.connections.length === 0 && (
        <p>
          {t.notConnected}{' '}
          <button type="button" className="link-button" onClick={() => go('vaults')}>
            {t.setUp}
          </button>
        </p>
      )}
      <ul className="connection-list">
        {status.connections.map((c) => (
          <li key={c.id} className={c.active ? 'connection active' : 'connection'} data-testid="connection">
            <div>
              <strong>{c.label}</strong> {c.active && <span className="pill pill-accepted">{t.inUse}</span>}
              {c.local && <span className="pill">{t.onThisComputer}</span>}
              <div className="muted small">
                {c.serviceUrl} ·{' '}
                {c.keyKind === 'agent' || c.keyKind === 'human' ? t.keyKind[c.keyKind] : t.keyKind.unknown} …
                {c.keyLast4} ·{' '}
                {c.keyMissing ? (
                  <strong className="text-danger" data-testid="connection-key-missing">
                    {t.keyMissing(t.keyStore[c.keyStore])}
                  </strong>
                ) : (
                  t.keptIn(t.keyStore[c.keyStore])
                )}
              </div>
              {replaced === c.id && !c.keyMissing && (
                <p className="notice notice-ok small" role="status" data-testid="connection-key-saved">
                  {t.keySaved(c.keyLast4)}
                </p>
              )}
            </div>
            <div className="row">
              {!c.active && (
                <button
                  type="button"
                  className="button secondary small"
                  disabled={busy}
                  onClick={() => void run(() => connections.switchConnection(c.id))}
                >
                  {t.use}
                </button>
              )}
              <button
                type="button"
                className="button secondary small"
                disabled={busy}
                onClick={() => {
                  setReplaced(undefined)
                  setReplacing(replacing === c.id ? undefined : c.id)
                }}
              >
                {t.replaceKey}
              </button>
              <button
                type="button"
                className="button danger small"
                disabled={busy}
                onClick={() => setForgetting(c)}
              >
                {t.forget}
              </button>
            </div>
            {replacing === c.id && (
              <form className="row" onSubmit={(e) => void replace(e, c.id)}>
                <label htmlFor={`replace-${c.id}`} className="visually-hidden">
                  {t.newKeyFor(c.label)}
                </label>
                <input
                  id={`replace-${c.id}`}
                  type="password"
                  value={newKey}
                  onChange={(e) => setNewKey(e.target.value)}
                  placeholder={t.newKeyPlaceholder}
                  autoComplete="off"
                  required
                />
                <button type="submit" className="button small" disabled={busy}>
                  {t.checkAndSave}
                </button>
              </form>
            )}
          </li>
        ))}
      </ul>
      {adding ? (
        <form className="add-connection" onSubmit={add}>
          <label htmlFor="add-url">{t.serviceAddress}</label>
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
          <label htmlFor="add-key">{t.apiKey}</label>
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
              {busy ? t.checking : t.connect}
            </button>
            <button type="button" className="button secondary" onClick={() => setAdding(false)}>
              {text.common.cancel}
            </button>
          </div>
        </form>
      ) : (
        <button type="button" className="button secondary" onClick={() => setAdding(true)}>
          {t.connectAnother}
        </button>
      )}
      {error !== undefined && <ErrorNotice error={error} />}
      {forgetting && (
        <ConfirmDialog
          title={t.forgetTitle(forgetting.label)}
          confirmLabel={t.forgetConfirm}
          danger
          busy={busy}
          onConfirm={() =>
            void run(() => connections.forgetConnection(forgetting.id)).then(() => setForgetting(undefined))
          }
          onCancel={() => setForgetting(undefined)}
        >
          <p>
            {t.forgetNote} {forgetting.local ? t.forgetLocal : t.forgetRemote}
          </p>
        </ConfirmDialog>
      )}
    </div>
  )
}
