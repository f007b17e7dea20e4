import type { ReadinessFix, ReadinessItem, VaultView } from '../../shared/ipc/vault-types'
import { mailTestText } from '../display/readiness-text'
import { useConnectionStore } from '../stores/connection-store'
import { useNavigationStore } from '../stores/navigation-store'
import { useOwnerKitFlow } from '../stores/owner-kit-store'
import { text } from '../text'
import { ErrorNotice } from './ErrorNotice'
import { useMailTest } from './use-mail-test'

const t = text.readiness

/** "Ready" or "N steps left", as a chip (cards, the vault header). */
export function ReadinessChip({ v }: { v: VaultView }) {
  if (v.state === 'released') return null
  const { ready, summary } = v.readiness
  return (
    <span
      className={`readiness-chip ${ready ? 'chip-ready' : 'chip-todo'}`}
      data-testid="readiness-chip"
      title={ready ? t.readyTitle : undefined}
    >
      {ready ? '✓ ' : ''}
      {summary}
    </span>
  )
}

/** The service runs inside this app: nobody else can reach it. Said wherever safety is judged. */
export function TrialNote() {
  const trial = useConnectionStore((s) => s.status?.service?.trial)
  const go = useNavigationStore((s) => s.go)
  if (!trial) return null
  return (
    <div className="notice notice-warn trial-note" data-testid="trial-note">
      <p>
        <strong>{t.trialTitle}</strong> {t.trialNote}
      </p>
      <div className="notice-actions">
        <button
          type="button"
          className="button secondary small"
          onClick={() => go('settings', 'connections')}
        >
          {t.toConnections}
        </button>
      </div>
    </div>
  )
}

/** The one thing to do next: the first open step of the checklist, with its fix. */
export function NextStep({ v }: { v: VaultView }) {
  if (v.state === 'released') return null
  const next = v.readiness.items.find((i) => !i.met)
  if (!next) return <p className="text-ok next-step">{t.allDone}</p>
  return (
    <div className="next-step" data-testid="next-step">
      <p>
        <strong>{t.nextStep}</strong> {next.title}. <span className="muted small">{next.detail}</span>
      </p>
      {next.fix && <FixButton vaultId={v.id} label={next.fix.label} fix={next.fix.action} />}
    </div>
  )
}

/**
 * The checklist for a release that really reaches the heirs; each open step has one fix. Once every
 * step is done it folds to its one line (it opens on a click).
 */
export function ReadinessPanel({ v }: { v: VaultView }) {
  const { ready, summary, items } = v.readiness
  // Open steps first, in the order main gives; done ones after.
  const ordered = [...items.filter((i) => !i.met), ...items.filter((i) => i.met)]
  return (
    <details className="panel readiness-panel" open={!ready} data-testid="readiness-panel">
      <summary>
        <h2 id="readiness-title">
          {t.title}{' '}
          <span
            className={`readiness-chip ${ready ? 'chip-ready' : 'chip-todo'}`}
            data-testid="readiness-summary"
          >
            {summary}
          </span>
        </h2>
      </summary>
      <p className={ready ? 'text-ok' : undefined}>{ready ? t.allDone : t.notYet}</p>
      <TrialNote />
      <ul className="readiness-list">
        {ordered.map((item) => (
          <ReadinessRow key={item.id} vaultId={v.id} item={item} />
        ))}
      </ul>
    </details>
  )
}

function ReadinessRow({ vaultId, item }: { vaultId: string; item: ReadinessItem }) {
  return (
    <li
      className={`readiness-item ${item.met ? 'met' : 'open'}`}
      data-testid={`readiness-item-${item.id}`}
      data-met={String(item.met)}
    >
      <span className="readiness-mark" aria-hidden="true">
        {item.met ? '✓' : ''}
      </span>
      <div className="readiness-body">
        <strong>
          <span className="visually-hidden">{`${item.met ? t.done : t.toDo} `}</span>
          {item.title}
        </strong>
        <p className={item.met ? 'muted small' : 'small'}>{item.detail}</p>
        {item.lines && item.lines.length > 0 && (
          <ul className="readiness-lines small" data-testid={`readiness-lines-${item.id}`}>
            {item.lines.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        )}
        {!item.met && item.fix && (
          <FixButton vaultId={vaultId} label={item.fix.label} fix={item.fix.action} />
        )}
      </div>
    </li>
  )
}

function FixButton({ vaultId, label, fix }: { vaultId: string; label: string; fix: ReadinessFix }) {
  const { setTab, go, openVault } = useNavigationStore()
  const openOwnerKit = useOwnerKitFlow((s) => s.open)
  const { busy, error, result, run: sendTestMail } = useMailTest()

  const run = () => {
    switch (fix.kind) {
      case 'open-tab':
        return setTab(fix.tab)
      case 'open-settings':
        return go('settings', 'connections')
      case 'send-test-mail':
        return void sendTestMail()
      case 'save-owner-kit':
        return openOwnerKit(vaultId)
      case 'add-credits':
        return go('settings', 'credits')
      case 'start-rehearsal':
        return openVault(vaultId, 'release', 'rehearsal')
    }
  }

  return (
    <div className="readiness-fix">
      <button type="button" className="button small" onClick={run} disabled={busy}>
        {busy ? t.sending : label}
      </button>
      {/* A new test's outcome replaces the last: none is shown while it is on its way. */}
      {result && !busy && (
        <p className={`notice ${result.delivered ? 'notice-ok' : 'notice-error'}`} role="status">
          {mailTestText(result)}
        </p>
      )}
      {error !== undefined && <ErrorNotice error={error} vaultId={vaultId} />}
    </div>
  )
}
