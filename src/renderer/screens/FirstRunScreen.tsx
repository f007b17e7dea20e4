import { type FormEvent, useId, useState } from 'react'
import { LIMITS } from '../../shared/api'
import { EmailSchema } from '../../shared/ipc/contract'
import { ErrorNotice } from '../components/ErrorNotice'
import { useAction } from '../components/use-action'
import { useConnectionStore } from '../stores/connection-store'
import { useNavigationStore } from '../stores/navigation-store'
import { langOf, text } from '../text'

const t = text.firstRun

/** First run: connect to a service with an API key, or run the service on this computer. */
export function FirstRunScreen() {
  const status = useConnectionStore((s) => s.status)
  const openVault = useNavigationStore((s) => s.openVault)
  const go = useNavigationStore((s) => s.go)
  const ids = { url: useId(), key: useId(), email: useId() }
  const [serviceUrl, setServiceUrl] = useState('https://')
  const [apiKey, setApiKey] = useState('')
  const [email, setEmail] = useState('')
  const connecting = useAction(async () => {
    await useConnectionStore.getState().connectService(serviceUrl, apiKey)
    setApiKey('')
  })
  const starting = useAction(async (checkedEmail: string) =>
    openVault(await useConnectionStore.getState().startLocally(checkedEmail)),
  )
  const busy = connecting.busy ? 'connect' : starting.busy ? 'local' : null
  const store = t.secretStore[status?.secretStore ?? 'memory']
  const localStore = t.localKeyStore[status?.secretStore ?? 'memory']
  // The service's own rule, checked here so that a mistyped address is the owner's to fix, said by its field.
  const [emailProblem, setEmailProblem] = useState<string>()

  const connect = async (event: FormEvent) => {
    event.preventDefault()
    // One failure shown at a time: the one of the choice tried last.
    starting.clearError()
    await connecting.run()
  }

  const startLocally = async (event: FormEvent) => {
    event.preventDefault()
    const checked = EmailSchema.safeParse(email.trim())
    if (!checked.success) {
      setEmailProblem(checked.error.issues[0]?.message)
      return
    }
    setEmailProblem(undefined)
    connecting.clearError()
    await starting.run(checked.data)
  }

  return (
    <section className="screen" aria-labelledby="first-run-title">
      <header className="screen-header">
        <h1 id="first-run-title">{t.title}</h1>
      </header>
      <p className="lead">{t.lead}</p>
      <div className="notice notice-ok" data-testid="heir-pointer" lang={langOf('firstRun', 'heirPointer')}>
        <p>
          {t.heirPointer}{' '}
          <button type="button" className="link-button" onClick={() => go('recovery')}>
            {t.goToRecovery}
          </button>{' '}
          {t.heirPointerEnd}
        </p>
      </div>
      <div className="choice-grid">
        {/* First what a newcomer can do with nothing: Connect needs a key they do not have yet. */}
        <form className="panel choice" onSubmit={startLocally} aria-labelledby="local-title">
          <h2 id="local-title">{t.localTitle}</h2>
          <p className="muted">{t.localNote(LIMITS.trialCredits)}</p>
          <label htmlFor={ids.email}>{t.email}</label>
          <input
            id={ids.email}
            type="email"
            required
            value={email}
            onChange={(e) => {
              setEmail(e.target.value)
              setEmailProblem(undefined)
            }}
            autoComplete="email"
            aria-invalid={emailProblem !== undefined}
            aria-describedby={emailProblem ? `${ids.email}-problem` : undefined}
          />
          {emailProblem && (
            <p className="field-error" id={`${ids.email}-problem`} role="alert">
              {emailProblem}
            </p>
          )}
          <p className="hint">{t.emailNote(localStore)}</p>
          <button type="submit" className="button" disabled={busy !== null}>
            {busy === 'local' ? t.starting : t.startLocally}
          </button>
          {starting.error !== undefined && <ErrorNotice error={starting.error} />}
        </form>
        <form className="panel choice" onSubmit={connect} aria-labelledby="connect-title">
          <h2 id="connect-title">{t.connectTitle}</h2>
          <p className="muted">{t.connectNote}</p>
          <label htmlFor={ids.url}>{t.serviceAddress}</label>
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
          <label htmlFor={ids.key}>{t.apiKey}</label>
          <input
            id={ids.key}
            type="password"
            required
            value={apiKey}
            onChange={(e) => setApiKey(e.target.value)}
            placeholder={t.apiKeyPlaceholder}
            autoComplete="off"
            spellCheck={false}
          />
          <p className="hint">{t.keyKept(store)}</p>
          <button type="submit" className="button" disabled={busy !== null}>
            {busy === 'connect' ? t.checkingKey : t.connect}
          </button>
          {connecting.error !== undefined && <ErrorNotice error={connecting.error} />}
        </form>
      </div>
    </section>
  )
}
