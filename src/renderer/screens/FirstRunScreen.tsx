import { type FormEvent, useId, useState } from 'react'
import { vault } from '../bridge/vault-client'
import { ErrorNotice } from '../components/ErrorNotice'
import { useConnectionStore } from '../stores/connection-store'
import { useNavigationStore } from '../stores/navigation-store'

export const SECRET_STORE_TEXT = {
  keychain: 'your system keychain',
  'encrypted-file': 'a file encrypted with your system login',
  memory: 'memory only: this computer has no keychain, so you will enter the key again after a restart',
} as const

/** First run: connect to a service with an API key, or run the service on this computer. */
export function FirstRunScreen() {
  const status = useConnectionStore((s) => s.status)
  const openVault = useNavigationStore((s) => s.openVault)
  const go = useNavigationStore((s) => s.go)
  const ids = { url: useId(), key: useId(), email: useId() }
  const [serviceUrl, setServiceUrl] = useState('https://')
  const [apiKey, setApiKey] = useState('')
  const [email, setEmail] = useState('')
  const [busy, setBusy] = useState<'connect' | 'local' | null>(null)
  const [error, setError] = useState<{ which: 'connect' | 'local'; error: unknown }>()
  const store = SECRET_STORE_TEXT[status?.secretStore ?? 'memory']

  const connect = async (event: FormEvent) => {
    event.preventDefault()
    setBusy('connect')
    setError(undefined)
    try {
      await vault().connectService({ serviceUrl, apiKey })
      setApiKey('')
    } catch (e) {
      setError({ which: 'connect', error: e })
    } finally {
      setBusy(null)
    }
  }

  const startLocally = async (event: FormEvent) => {
    event.preventDefault()
    setBusy('local')
    setError(undefined)
    try {
      const result = await vault().startLocally({ email })
      openVault(result.vault.id)
    } catch (e) {
      setError({ which: 'local', error: e })
    } finally {
      setBusy(null)
    }
  }

  return (
    <section className="screen" aria-labelledby="first-run-title">
      <header className="screen-header">
        <h1 id="first-run-title">Set up Vault Desktop</h1>
      </header>
      <p className="lead">
        Your files are encrypted on this computer before they go anywhere. Choose where your vault lives:
      </p>
      <div className="notice notice-ok" data-testid="heir-pointer">
        <p>
          Did someone leave you their files? You do not need to set anything up here.{' '}
          <button type="button" className="link-button" onClick={() => go('recovery')}>
            Go to Recovery
          </button>{' '}
          and follow the steps with the e-mail you received and the guardians' kits.
        </p>
      </div>
      <div className="choice-grid">
        <form className="panel choice" onSubmit={connect} aria-labelledby="connect-title">
          <h2 id="connect-title">Connect to a vault service</h2>
          <p className="muted">Use the address and API key from your vault service's dashboard settings.</p>
          <label htmlFor={ids.url}>Service address</label>
          <input
            id={ids.url}
            type="text"
            inputMode="url"
            spellCheck={false}
            required
            value={serviceUrl}
            onChange={(e) => setServiceUrl(e.target.value)}
            autoComplete="url"
          />
          <label htmlFor={ids.key}>API key</label>
          <input
            id={ids.key}
            type="password"
            required
            value={apiKey}
            onChange={(e) => setApiKey(e.target.value)}
            placeholder="sk_human_… or sk_agent_…"
            autoComplete="off"
            spellCheck={false}
          />
          <p className="hint">
            The key is checked by listing your vaults, then kept in {store}. This window never sees it again.
          </p>
          <button type="submit" className="button" disabled={busy !== null}>
            {busy === 'connect' ? 'Checking the key…' : 'Connect'}
          </button>
          {error?.which === 'connect' && <ErrorNotice error={error.error} />}
        </form>

        <form className="panel choice" onSubmit={startLocally} aria-labelledby="local-title">
          <h2 id="local-title">Start locally on this computer</h2>
          <p className="muted">
            Runs the vault service inside this app, on this computer only. You get an account with 100 trial
            credits ($1.00) and a first vault whose key is made on this device.
          </p>
          <label htmlFor={ids.email}>Your e-mail address</label>
          <input
            id={ids.email}
            type="email"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            autoComplete="email"
          />
          <p className="hint">Used for the owner alerts the service records. The key is kept in {store}.</p>
          <button type="submit" className="button" disabled={busy !== null}>
            {busy === 'local' ? 'Starting…' : 'Start locally'}
          </button>
          {error?.which === 'local' && <ErrorNotice error={error.error} />}
        </form>
      </div>
    </section>
  )
}
