import { type FormEvent, useId, useState } from 'react'
import { UiError } from '../display/error-text'
import { mailTestText } from '../display/readiness-text'
import { useConnectionStore, useWriteAccess } from '../stores/connection-store'
import { useSectionTarget } from '../stores/section-target'
import { langOf, text } from '../text'
import { ErrorNotice } from './ErrorNotice'
import { LocalMailLink } from './LocalMailPanel'
import { useAction } from './use-action'
import { useMailTest } from './use-mail-test'

const MAX_CREDITS = 1_000_000

/** Settings → Credits: add them here (the service on this computer) or where the service sells them. */
export function CreditsPanel() {
  const service = useConnectionStore((s) => s.status?.service)
  const { canWrite, reason } = useWriteAccess()
  const id = useId()
  const [amount, setAmount] = useState('500')
  const [balance, setBalance] = useState<number>()
  const adding = useAction(async (credits: number) =>
    setBalance(await useConnectionStore.getState().addLocalCredits(credits)),
  )
  // A refused amount is said where the service's failure would be.
  const [invalid, setInvalid] = useState<unknown>()
  const busy = adding.busy
  const error = invalid ?? adding.error
  useSectionTarget('credits', !!service)
  if (!service) return null

  const add = async (event: FormEvent) => {
    event.preventDefault()
    const credits = Number(amount)
    adding.clearError()
    setBalance(undefined)
    if (!Number.isInteger(credits) || credits < 1 || credits > MAX_CREDITS) {
      setInvalid(new UiError(text.credits.invalid(MAX_CREDITS), langOf('credits')))
      return
    }
    setInvalid(undefined)
    await adding.run(credits)
  }

  return (
    <div className="panel">
      <h2 id="section-credits" tabIndex={-1}>
        {text.credits.title}
      </h2>
      <p className="muted small">{text.credits.note}</p>
      {service.credits.addHere ? (
        <form className="inline-form" onSubmit={add}>
          <label htmlFor={id}>{text.credits.toAdd}</label>
          <input
            id={id}
            type="number"
            min={1}
            max={MAX_CREDITS}
            step={1}
            value={amount}
            onChange={(e) => setAmount(e.target.value)}
            disabled={!canWrite}
          />
          <button type="submit" className="button" disabled={busy || !canWrite} title={reason ?? undefined}>
            {busy ? text.credits.adding : text.credits.add}
          </button>
          <span className="muted small">{text.credits.addHereNote}</span>
        </form>
      ) : service.credits.buyAt ? (
        <p>
          <a className="button" href={service.credits.buyAt} target="_blank" rel="noreferrer">
            {text.credits.buy}
          </a>{' '}
          <span className="muted small">{text.credits.opens(service.credits.buyAt)}</span>
        </p>
      ) : (
        <p>{text.credits.nowhereToBuy}</p>
      )}
      {balance !== undefined && (
        <p className="notice notice-ok" role="status" data-testid="credits-added">
          {text.credits.added(balance)}
        </p>
      )}
      {error !== undefined && <ErrorNotice error={error} />}
    </div>
  )
}

/** Settings → E-mail: whether the service can reach heirs and guardians, and a test to prove it. */
export function MailPanel() {
  const service = useConnectionStore((s) => s.status?.service)
  const { busy, error, result, run: send } = useMailTest()
  useSectionTarget('mail-test', !!service)
  if (!service) return null
  const last = result ?? service.lastMailTest
  const canTest = service.extensions.includes('mail-test')

  return (
    <div className="panel">
      <h2 id="section-mail-test" tabIndex={-1}>
        {text.mail.title}
      </h2>
      <p data-testid="mail-configured">
        {service.trial
          ? text.mail.trial
          : service.mailConfigured === false
            ? text.mail.notConfigured
            : service.mailConfigured === true
              ? text.mail.configured
              : text.mail.unknown}
      </p>
      {service.trial && (
        <LocalMailLink lead={text.localMail.servicePanelLead} label={text.localMail.seeAllMail} />
      )}
      {canTest ? (
        <div className="row">
          <button type="button" className="button secondary" onClick={() => void send()} disabled={busy}>
            {busy ? text.mail.sending : text.mail.send}
          </button>
          <span className="muted small">{text.mail.sentTo}</span>
        </div>
      ) : (
        <p className="muted small">{text.mail.cannotTest}</p>
      )}
      {last && (
        <p
          className={`notice ${last.delivered ? 'notice-ok' : 'notice-error'}`}
          role={result ? 'status' : undefined}
          data-testid="mail-test-result"
        >
          {result ? '' : `${text.mail.lastTest} `}
          {mailTestText(last)}
        </p>
      )}
      {error !== undefined && <ErrorNotice error={error} />}
    </div>
  )
}
