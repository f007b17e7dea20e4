import { useEffect, useId, useState } from 'react'
import type { SettingsPatch } from '../../shared/ipc/settings'
import type { UnlockCheckInStatus } from '../../shared/ipc/vault-types'
import { ConnectionsPanel } from '../components/ConnectionsPanel'
import { ErrorNotice } from '../components/ErrorNotice'
import { LocalMailPanel } from '../components/LocalMailPanel'
import { CreditsPanel, MailPanel } from '../components/ServicePanel'
import { useAction } from '../components/use-action'
import { errorView } from '../display/error-text'
import { useSettingsStore } from '../stores/settings-store'
import { format, text } from '../text'

const t = text.settings

function errorText(error: unknown): string {
  return errorView(error).message
}

export function SettingsScreen() {
  const { settings, appInfo, update } = useSettingsStore()
  const [status, setStatus] = useState<{ kind: 'saved' | 'error'; text: string } | undefined>()
  const ids = {
    theme: useId(),
    login: useId(),
    notifications: useId(),
    overdue: useId(),
    before: useId(),
    concurrency: useId(),
    confirm: useId(),
    reserve: useId(),
  }

  if (!settings || !appInfo) return null
  // Electron sets login items on macOS and Windows only.
  const loginItems = appInfo.mode === 'electron' && appInfo.platform !== 'linux'

  const save = async (patch: SettingsPatch) => {
    try {
      await update(patch)
      setStatus({ kind: 'saved', text: t.saved })
    } catch (error) {
      setStatus({ kind: 'error', text: errorText(error) })
    }
  }

  return (
    <section className="screen" aria-labelledby="settings-title">
      <header className="screen-header">
        <h1 id="settings-title">{t.title}</h1>
        <p className="status-line" role="status" data-kind={status?.kind}>
          {status?.text}
        </p>
      </header>

      <ConnectionsPanel />
      <CreditsPanel />
      <MailPanel />
      <LocalMailPanel />

      <div className="panel form-grid">
        <h2>{t.appearance}</h2>
        <label htmlFor={ids.theme}>{t.theme}</label>
        <select
          id={ids.theme}
          value={settings.theme}
          onChange={(event) => save({ theme: event.target.value as 'system' | 'light' | 'dark' })}
        >
          <option value="system">{t.themeSystem}</option>
          <option value="light">{t.themeLight}</option>
          <option value="dark">{t.themeDark}</option>
        </select>

        <label htmlFor={ids.login}>{t.launchAtLogin}</label>
        <input
          id={ids.login}
          type="checkbox"
          checked={settings.launchAtLogin}
          disabled={!loginItems}
          aria-describedby={loginItems ? undefined : `${ids.login}-note`}
          onChange={(event) => save({ launchAtLogin: event.target.checked })}
        />
        {!loginItems && (
          <p id={`${ids.login}-note`} className="muted small form-note">
            {appInfo.mode === 'browser' ? t.loginBrowser : t.loginLinux}
          </p>
        )}
      </div>

      <div className="panel form-grid">
        <h2>{t.reminders}</h2>
        <label htmlFor={ids.notifications}>{t.notifications}</label>
        <input
          id={ids.notifications}
          type="checkbox"
          checked={settings.notifications}
          onChange={(event) => save({ notifications: event.target.checked })}
        />

        <label htmlFor={ids.before}>{t.remindBefore}</label>
        <select
          id={ids.before}
          value={settings.reminderDaysBefore.join(',')}
          onChange={(event) =>
            save({ reminderDaysBefore: event.target.value ? event.target.value.split(',').map(Number) : [] })
          }
        >
          {[[7, 3, 1], [3, 1], [1], []].map((days) => (
            <option key={days.join(',')} value={days.join(',')}>
              {t.daysBefore(days)}
            </option>
          ))}
          {!['7,3,1', '3,1', '1', ''].includes(settings.reminderDaysBefore.join(',')) && (
            <option value={settings.reminderDaysBefore.join(',')}>
              {t.daysBefore(settings.reminderDaysBefore)}
            </option>
          )}
        </select>

        <label htmlFor={ids.overdue}>{t.overdueEvery}</label>
        <select
          id={ids.overdue}
          value={settings.overdueRepeatHours}
          onChange={(event) => save({ overdueRepeatHours: Number(event.target.value) })}
        >
          {[1, 3, 6, 12, 24].map((hours) => (
            <option key={hours} value={hours}>
              {t.everyHours(hours)}
            </option>
          ))}
        </select>
      </div>

      <UnlockCheckInPanel />

      <div className="panel form-grid">
        <h2>{t.uploads}</h2>
        <label htmlFor={ids.concurrency}>{t.concurrency}</label>
        <select
          id={ids.concurrency}
          value={settings.uploadConcurrency}
          onChange={(event) => save({ uploadConcurrency: Number(event.target.value) })}
        >
          {[1, 2, 3, 4].map((n) => (
            <option key={n} value={n}>
              {format.number(n)}
            </option>
          ))}
        </select>

        <label htmlFor={ids.confirm}>{t.confirmAbove}</label>
        <input
          id={ids.confirm}
          type="number"
          min={0}
          step={10}
          defaultValue={settings.confirmUploadAboveCredits}
          onBlur={(event) => {
            const value = Number(event.target.value)
            if (!Number.isInteger(value) || value < 0) {
              setStatus({ kind: 'error', text: t.confirmAboveInvalid })
              return
            }
            if (value !== settings.confirmUploadAboveCredits) void save({ confirmUploadAboveCredits: value })
          }}
        />

        <label htmlFor={ids.reserve}>{t.reserve}</label>
        <select
          id={ids.reserve}
          value={settings.checkInReserveMonths}
          aria-describedby={`${ids.reserve}-note`}
          onChange={(event) => save({ checkInReserveMonths: Number(event.target.value) })}
        >
          {[...new Set([0, 3, 6, 12, 24, 36, settings.checkInReserveMonths].sort((a, b) => a - b))].map(
            (months) => (
              <option key={months} value={months}>
                {t.reserveMonths(months)}
              </option>
            ),
          )}
        </select>
        <p id={`${ids.reserve}-note`} className="muted small form-note">
          {t.reserveNote}
        </p>

        {/* Hidden by default; real names are each vault's choice (its Files tab). */}
        <p className="small form-note">
          <strong>{t.hideNames}.</strong> <span className="muted">{t.hideNamesNote}</span>
        </p>
      </div>

      <div className="panel">
        <h2>{t.about}</h2>
        <dl className="facts">
          <dt>{t.version}</dt>
          <dd>{appInfo.version}</dd>
          <dt>{t.platform}</dt>
          <dd>{appInfo.platform}</dd>
          <dt>{t.runningAs}</dt>
          <dd>{appInfo.mode === 'electron' ? t.desktopApp : t.browserMode}</dd>
          <dt>{t.keysKeptIn}</dt>
          <dd data-testid="secret-store">{t.secretStore[appInfo.secretStore]}</dd>
        </dl>
      </div>
    </section>
  )
}

/**
 * Check-in when the computer is unlocked: off by default; turning it on stores a read-and-check-in
 * (sk_agent_) key, made by the app for the service on this computer or pasted for another service.
 */
/** What turning the check-in on unlock off did to its key: revoked on the service, or still valid there. */
export function turnedOffText(result: UnlockCheckInStatus): string {
  const u = text.unlockCheckIn
  const removed = result.removedKey
  if (!removed) return u.turnedOff
  if (removed.revokedOnService) return u.turnedOffRevoked
  return u.turnedOffStillValid(removed.last4, result.connectionLabel ?? '')
}

function UnlockCheckInPanel() {
  const u = text.unlockCheckIn
  const enabled = useSettingsStore((s) => s.settings?.checkInOnUnlock ?? false)
  const mode = useSettingsStore((s) => s.appInfo?.mode)
  const ids = { toggle: useId(), key: useId() }
  const [status, setStatus] = useState<UnlockCheckInStatus>()
  const [asking, setAsking] = useState(false)
  const [pasted, setPasted] = useState('')
  /** What the owner just asked for, shown while main works on it. */
  const [pending, setPending] = useState<boolean>()
  const [readError, setReadError] = useState<unknown>()
  const [done, setDone] = useState<string>()
  const unlock = useSettingsStore.getState()
  const changing = useAction(
    async (
      work: () => Promise<UnlockCheckInStatus>,
      after: string | ((result: UnlockCheckInStatus) => string),
    ) => {
      setDone(undefined)
      const result = await work()
      setStatus(result)
      setAsking(false)
      setPasted('')
      setDone(typeof after === 'string' ? after : after(result))
    },
  )
  const busy = changing.busy
  const error = changing.error ?? readError

  // Read again whenever the setting changes (here or from another window).
  // biome-ignore lint/correctness/useExhaustiveDependencies: the status follows the setting
  useEffect(() => {
    void unlock.readUnlockCheckIn().then(setStatus, setReadError)
  }, [enabled])

  const run = async (
    work: () => Promise<UnlockCheckInStatus>,
    after: string | ((result: UnlockCheckInStatus) => string),
    wanted: boolean,
  ) => {
    setPending(wanted)
    setReadError(undefined)
    await changing.run(work, after)
    setPending(undefined)
  }
  const turnOn = (agentKey?: string) => run(() => unlock.enableUnlockCheckIn(agentKey), u.turnedOn, true)
  const toggle = (on: boolean) => {
    if (!on) {
      setAsking(false)
      if (enabled) void run(unlock.disableUnlockCheckIn, turnedOffText, false)
      return
    }
    // The service on this computer: the app makes the key. Another service: the owner pastes one.
    if (status?.local || status?.agentKey) return void turnOn()
    setAsking(true)
    setDone(undefined)
  }
  const key = status?.agentKey
  // On, but the key of another service is gone (a store without a keychain forgets it at restart).
  const keyMissing = enabled && !!status && !status.agentKey && !status.local && !!status.connectionLabel
  const where = key ? text.settings.secretStore[key.storedIn] : ''

  return (
    <div className="panel form-grid unlock-panel" id="unlock-check-in">
      <h2>{u.title}</h2>
      <label htmlFor={ids.toggle}>{u.toggle}</label>
      <input
        id={ids.toggle}
        type="checkbox"
        checked={pending ?? (enabled || asking)}
        disabled={busy || !status?.connectionLabel}
        aria-describedby={`${ids.toggle}-note`}
        onChange={(event) => toggle(event.target.checked)}
      />
      <div id={`${ids.toggle}-note`} className="muted small form-note">
        <p>{u.note}</p>
        <p>{u.keyNote}</p>
        <p data-testid="agent-key-can">
          {u.keyCan} {u.keyCannot}
        </p>
        {status && !status.connectionLabel && <p>{u.noConnection}</p>}
        {mode === 'browser' && <p>{u.noDesktop}</p>}
      </div>
      {enabled && key && (
        <p className="form-note" data-testid="agent-key-status">
          {key.origin === 'created' ? u.keyCreated(key.last4, where) : u.keyPasted(key.last4, where)}
        </p>
      )}
      {enabled && key && !key.durable && <p className="notice notice-warn form-note">{u.notDurable}</p>}
      {keyMissing && <p className="notice notice-warn form-note">{u.keyMissing}</p>}
      {((asking && !enabled) || keyMissing) && (
        <form
          className="form-note unlock-key-form"
          onSubmit={(event) => {
            event.preventDefault()
            void turnOn(pasted)
          }}
        >
          <label htmlFor={ids.key}>{u.pasteLabel}</label>
          <div className="inline-form">
            <input
              id={ids.key}
              type="password"
              autoComplete="off"
              spellCheck={false}
              value={pasted}
              aria-describedby={`${ids.key}-help`}
              onChange={(event) => setPasted(event.target.value)}
            />
            <button type="submit" className="button" disabled={busy || !pasted.trim()}>
              {u.turnOn}
            </button>
          </div>
          <p id={`${ids.key}-help`} className="muted small">
            {u.pasteHelp(status?.connectionLabel ?? '')}
          </p>
        </form>
      )}
      {error !== undefined && (
        <div className="form-note">
          <ErrorNotice error={error} />
        </div>
      )}
      {done && (
        // A key that still works on the service is a warning, not a plain confirmation.
        <p
          className={`${status?.removedKey?.revokedOnService === false ? 'notice notice-warn' : 'status-line'} form-note`}
          role="status"
          data-testid="unlock-check-in-done"
        >
          {done}
        </p>
      )}
    </div>
  )
}
