import { useId, useState } from 'react'
import type { SettingsPatch } from '../../shared/ipc/settings'
import { ConnectionsPanel } from '../components/ConnectionsPanel'
import { CreditsPanel, MailPanel } from '../components/ServicePanel'
import { useSettingsStore } from '../stores/settings-store'
import { format, text } from '../text'

const t = text.settings

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
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
    hideNames: useId(),
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

        <label htmlFor={ids.hideNames}>{t.hideNames}</label>
        <input
          id={ids.hideNames}
          type="checkbox"
          checked={settings.hideFileNames}
          aria-describedby={`${ids.hideNames}-note`}
          onChange={(event) => save({ hideFileNames: event.target.checked })}
        />
        <p id={`${ids.hideNames}-note`} className="muted small form-note">
          {t.hideNamesNote}
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
