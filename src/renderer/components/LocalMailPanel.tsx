// Settings → Mail from the local trial: what the service on this computer would have e-mailed, so the
// owner can play each guardian and heir (accept an invitation, confirm a kit check, make a claim).
// Only for the trial service: main refuses it for any other, and this panel shows only on the trial.
import { useEffect } from 'react'
import type { LocalMailMessage } from '../../shared/ipc/local-mail'
import { useConnectionStore } from '../stores/connection-store'
import { useLocalMailStore } from '../stores/local-mail-store'
import { useNavigationStore } from '../stores/navigation-store'
import { useSectionTarget } from '../stores/section-target'
import { useSettingsStore } from '../stores/settings-store'
import { format, text } from '../text'
import { ErrorNotice } from './ErrorNotice'
import { ModalDialog } from './ModalDialog'

const t = text.localMail

const deliveryText = (m: LocalMailMessage) =>
  m.delivery.state === 'sent'
    ? t.sent(m.delivery.at)
    : m.delivery.reason === 'no-mail-server'
      ? t.notSentNoServer
      : t.notSentFailed(m.delivery.attempts, m.delivery.lastError)

export function LocalMailPanel() {
  const trial = useConnectionStore((s) => s.status?.service?.trial ?? false)
  const { mailbox, error, openId, watch, open, load } = useLocalMailStore()
  useSectionTarget('local-mail', trial)
  useEffect(() => (trial ? watch() : undefined), [trial, watch])
  if (!trial) return null
  const messages = mailbox?.messages ?? []
  const opened = messages.find((m) => m.id === openId)

  return (
    <div className="panel" data-testid="local-mail">
      <h2 id="section-local-mail" tabIndex={-1}>
        {t.title}
      </h2>
      <p>{t.lead}</p>
      <p className="notice notice-warn" data-testid="local-mail-privacy">
        {t.privacy}
      </p>
      {error !== undefined && <ErrorNotice error={error} onRetry={() => void load()} />}
      {mailbox && messages.length === 0 && <p className="muted">{t.none}</p>}
      {messages.length > 0 && (
        <>
          <p className="muted small" role="status">
            {t.count(messages.length)}
          </p>
          <ul className="mail-list">
            {messages.map((m) => (
              <li key={m.id}>
                <button
                  type="button"
                  className="mail-item"
                  onClick={() => open(m.id)}
                  data-testid="local-mail-item"
                >
                  <span className="mail-item-head">
                    <strong className="mail-subject">{m.subject}</strong>
                    <span className="muted small nowrap">{t.kind(m.kind)}</span>
                  </span>
                  <span className="mail-item-facts small">
                    <span className="mail-to">
                      {t.to}: {m.to}
                    </span>
                    <span className="muted">{format.dateTime(m.createdAt)}</span>
                    <span className={m.delivery.state === 'sent' ? 'mail-sent' : 'mail-not-sent'}>
                      {deliveryText(m)}
                    </span>
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
      {opened && mailbox && (
        <MailMessageDialog message={opened} serviceUrl={mailbox.serviceUrl} onClose={() => open(null)} />
      )}
    </div>
  )
}

function MailMessageDialog({
  message,
  serviceUrl,
  onClose,
}: {
  message: LocalMailMessage
  serviceUrl: string
  onClose(): void
}) {
  const mode = useSettingsStore((s) => s.appInfo?.mode)
  return (
    <ModalDialog title={message.subject} className="dialog mail-dialog" onClose={onClose}>
      <dl className="facts">
        <dt>{t.to}</dt>
        <dd className="mail-to">{message.to}</dd>
        <dt>{t.when}</dt>
        <dd>{format.dateTime(message.createdAt)}</dd>
        <dt>{t.status}</dt>
        <dd data-testid="local-mail-delivery">{deliveryText(message)}</dd>
      </dl>
      <pre className="mail-body" data-testid="local-mail-body">
        <MailText body={message.body} serviceUrl={serviceUrl} />
      </pre>
      <p className="muted small">{mode === 'browser' ? t.linksBrowser : t.linksElectron}</p>
      <div className="dialog-actions">
        <button type="button" className="button secondary" onClick={onClose}>
          {t.close}
        </button>
      </div>
    </ModalDialog>
  )
}

const URL_IN_TEXT = /https?:\/\/[^\s<>"']+/g

const originOf = (url: string) => {
  try {
    return new URL(url).origin
  } catch {
    return null
  }
}

/**
 * The body as text, its links to the service on this computer clickable. A link opens outside the app:
 * in Electron the window-open guard hands it to the system browser (only for this service's address);
 * in browser mode a new tab, without a handle back to the app (noopener). Other addresses stay text.
 */
function MailText({ body, serviceUrl }: { body: string; serviceUrl: string }) {
  const service = originOf(serviceUrl)
  const parts: React.ReactNode[] = []
  let last = 0
  for (const match of body.matchAll(URL_IN_TEXT)) {
    // A sentence's full stop or closing bracket is not part of the link.
    const url = match[0].replace(/[.,;:!?)\]]+$/, '')
    const start = match.index
    if (service === null || originOf(url) !== service) continue
    parts.push(body.slice(last, start))
    parts.push(
      <a key={start} href={url} target="_blank" rel="noopener">
        {url}
      </a>,
    )
    last = start + url.length
  }
  parts.push(body.slice(last))
  return <>{parts}</>
}

/**
 * A short way from a vault screen to the mail the trial service would have sent; nothing on any other
 * service. With a lead, a line of its own (the lead, then the link).
 */
export function LocalMailLink({ label = t.seeMail, lead }: { label?: string; lead?: string }) {
  const trial = useConnectionStore((s) => s.status?.service?.trial ?? false)
  const go = useNavigationStore((s) => s.go)
  if (!trial) return null
  const link = (
    <button
      type="button"
      className="link-button"
      onClick={() => go('settings', 'local-mail')}
      data-testid="local-mail-link"
    >
      {label}
    </button>
  )
  return lead ? (
    <p className="muted small">
      {lead} {link}
    </p>
  ) : (
    link
  )
}
