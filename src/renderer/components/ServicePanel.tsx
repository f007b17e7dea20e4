import { type FormEvent, useId, useState } from 'react'
import type { MailTestResult } from '../../shared/api'
import { vault } from '../bridge/vault-client'
import { mailTestText } from '../display/readiness-text'
import { formatCredits } from '../display/units'
import { useConnectionStore, useWriteAccess } from '../stores/connection-store'
import { useSectionTarget } from '../stores/section-target'
import { ErrorNotice } from './ErrorNotice'

/** Settings → Credits: add them here (the service on this computer) or where the service sells them. */
export function CreditsPanel() {
  const service = useConnectionStore((s) => s.status?.service)
  const { canWrite, reason } = useWriteAccess()
  const id = useId()
  const [amount, setAmount] = useState('500')
  const [busy, setBusy] = useState(false)
  const [balance, setBalance] = useState<number>()
  const [error, setError] = useState<unknown>()
  useSectionTarget('credits', !!service)
  if (!service) return null

  const add = async (event: FormEvent) => {
    event.preventDefault()
    const credits = Number(amount)
    setError(undefined)
    setBalance(undefined)
    if (!Number.isInteger(credits) || credits < 1 || credits > 1_000_000) {
      setError(new Error('Enter a whole number of credits between 1 and 1,000,000.'))
      return
    }
    setBusy(true)
    try {
      setBalance((await vault().addLocalCredits({ credits })).creditsBalance)
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }

  return (
    <div className="panel">
      <h2 id="section-credits" tabIndex={-1}>
        Credits
      </h2>
      <p className="muted small">
        Check-ins and stored files cost credits. When they run out, check-ins fail — and a missed check-in
        starts the release.
      </p>
      {service.credits.addHere ? (
        <form className="inline-form" onSubmit={add}>
          <label htmlFor={id}>Credits to add</label>
          <input
            id={id}
            type="number"
            min={1}
            max={1_000_000}
            step={1}
            value={amount}
            onChange={(e) => setAmount(e.target.value)}
            disabled={!canWrite}
          />
          <button type="submit" className="button" disabled={busy || !canWrite} title={reason ?? undefined}>
            {busy ? 'Adding…' : 'Add credits'}
          </button>
          <span className="muted small">
            The vault service on this computer keeps its own balance; credits added here cost nothing.
          </span>
        </form>
      ) : service.credits.buyAt ? (
        <p>
          <a className="button" href={service.credits.buyAt} target="_blank" rel="noreferrer">
            Buy credits from your service
          </a>{' '}
          <span className="muted small">Opens {service.credits.buyAt} in your browser.</span>
        </p>
      ) : (
        <p>This service does not say where to buy credits. Ask whoever runs it.</p>
      )}
      {balance !== undefined && (
        <p className="notice notice-ok" role="status" data-testid="credits-added">
          Added. The balance is now {formatCredits(balance)}.
        </p>
      )}
      {error !== undefined && <ErrorNotice error={error} />}
    </div>
  )
}

/** Settings → E-mail: whether the service can reach heirs and guardians, and a test to prove it. */
export function MailPanel() {
  const service = useConnectionStore((s) => s.status?.service)
  const [busy, setBusy] = useState(false)
  const [result, setResult] = useState<MailTestResult>()
  const [error, setError] = useState<unknown>()
  useSectionTarget('mail-test', !!service)
  if (!service) return null
  const last = result ?? service.lastMailTest
  const canTest = service.extensions.includes('mail-test')

  const send = async () => {
    setBusy(true)
    setError(undefined)
    try {
      setResult(await vault().sendTestMail())
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }

  return (
    <div className="panel">
      <h2 id="section-mail-test" tabIndex={-1}>
        E-mail to heirs and guardians
      </h2>
      <p data-testid="mail-configured">
        {service.trial
          ? 'No e-mail leaves this computer: the vault service runs here, as a trial. Heirs and guardians would not be told anything.'
          : service.mailConfigured === false
            ? 'The service has no e-mail set up: heirs and guardians would not be told anything. Ask whoever runs it to set up e-mail, then send a test.'
            : service.mailConfigured === true
              ? 'The service says it can send e-mail. Send a test to your own address to be sure it arrives.'
              : 'This service does not say whether it sends e-mail.'}
      </p>
      {canTest ? (
        <div className="row">
          <button type="button" className="button secondary" onClick={() => void send()} disabled={busy}>
            {busy ? 'Sending…' : 'Send a test e-mail'}
          </button>
          <span className="muted small">Sent to your account's e-mail address.</span>
        </div>
      ) : (
        <p className="muted small">This service cannot send a test e-mail from the app.</p>
      )}
      {last && (
        <p
          className={`notice ${last.delivered ? 'notice-ok' : 'notice-error'}`}
          role={result ? 'status' : undefined}
          data-testid="mail-test-result"
        >
          {result ? '' : 'Last test: '}
          {mailTestText(last)}
        </p>
      )}
      {error !== undefined && <ErrorNotice error={error} />}
    </div>
  )
}
