// The words outside the window (tray, desktop notifications, the core's notices, reminders, native
// pickers) come from one typed catalogue, like the window's: English by default, the system's
// language when the shell names one, and none written in place in the files that show them.
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { setDesktopLocale } from '../../src/main/core/desktop-text'
import { english } from '../../src/main/core/desktop-text/en'
import { spanish } from '../../src/main/core/desktop-text/es'
import { reminderText } from '../../src/main/core/vaults/checkin-schedule'
import { deriveTrayState } from '../../src/main/core/vaults/tray-state'
import { batchEndNotice, claimNotice, releasingNotice } from '../../src/main/core/vaults/vault-notices'
import { trayMenuItems } from '../../src/main/electron/tray-menu'
import { localeFormat } from '../../src/shared/locale-format'
import { ROOT, scan } from '../support/hard-coded-text'

const NOW = Date.parse('2026-11-27T09:00:00Z')
const DAY = 86_400_000

type Entry = [key: string, value: unknown]
const entries = (section: object, prefix = ''): Entry[] =>
  Object.entries(section).flatMap(([key, value]): Entry[] =>
    value && typeof value === 'object' ? entries(value, `${prefix}${key}.`) : [[`${prefix}${key}`, value]],
  )
const render = (message: unknown, n: number): unknown =>
  typeof message === 'function' ? message(...Array.from({ length: message.length }, () => n)) : message

afterEach(() => setDesktopLocale('en'))

describe('the desktop catalogue', () => {
  it('Spanish has every message of English, of the same kind, and reads right for any number', () => {
    const en = new Map(entries(english(localeFormat('en'))))
    const es = new Map(entries(spanish(localeFormat('es-ES'))))
    expect([...es.keys()].sort()).toEqual([...en.keys()].sort())
    for (const [key, message] of es) {
      expect(typeof message, key).toBe(typeof en.get(key))
      for (const n of [0, 1, 2, 31]) {
        const shown = render(message, n)
        expect(typeof shown, key).toBe('string')
        expect(shown as string, key).not.toMatch(/undefined|NaN|\[object/)
      }
    }
  })

  it('the tray, the reminders and the notices speak the system language once the shell names it', () => {
    const vaults = [
      {
        vaultId: 'a',
        label: 'Papeles',
        state: 'active' as const,
        nextCheckInDue: new Date(NOW + 3 * DAY).toISOString(),
      },
    ]
    expect(deriveTrayState(vaults, NOW).text).toBe('Next check-in: Papeles in 3 days')
    setDesktopLocale('es-ES')
    expect(deriveTrayState(vaults, NOW).text).toBe('Próxima confirmación: Papeles en 3 días')
    expect(reminderText('Papeles', 'overdue', NOW - 3 * DAY, NOW).title).toBe('Confirmación vencida')
    const releasing = releasingNotice('Papeles', { vaultId: 'a', daysLeftToCancel: 1 } as never)
    expect(releasing).toMatchObject({ title: 'Papeles se está liberando', lang: 'es' })
    expect(releasing.body).toContain('Le quedan 1 día para cancelarla')
    const done = batchEndNotice('Papeles', 'a', { done: 2, failed: 0, creditsConsumed: 1 } as never)
    expect(done).toMatchObject({
      title: 'Copia terminada: 2 archivos',
      body: 'Papeles: 2 archivos cifrados y guardados por 1 crédito.',
    })
    const menu = trayMenuItems(
      {
        level: 'ok',
        text: 'x',
        nextCheckIn: null,
        readiness: [{ vaultId: 'a', label: 'Papeles', summary: '', ready: true }],
      },
      [{ id: 'a', label: 'Papeles', state: 'active' }],
      { checkIn: () => {}, openVault: () => {} },
    )
    expect(menu.map((item) => item.label)).toEqual(['x', 'Papeles: lista'])
  })

  it('dates in the reminders and the claim notice are written the system language’s way', () => {
    setDesktopLocale('es-ES')
    const es = localeFormat('es-ES')
    const claimedAt = '2026-11-20T15:30:00.000Z'
    const claim = claimNotice('Papeles', { vaultId: 'a', guardian: 'Gina', count: 1, needed: 2, claimedAt })
    expect(claim.body).toContain(`Gina, guardián, dijo el ${es.date(Date.parse(claimedAt))} que`)
    const due = NOW + 2 * DAY
    const before = reminderText('Papeles', 'before', due, NOW)
    expect(before.body).toContain(`confirme antes del ${es.dateTime(due)} para`)
    // Not the English day names, months or "UTC" of a date written in place.
    for (const body of [claim.body, before.body]) expect(body).not.toMatch(/UTC|Fri|Nov |Sun/)
  })

  it('English notices carry no language mark (the window is English)', () => {
    expect(releasingNotice('Papers', { vaultId: 'a', daysLeftToCancel: 2 } as never)).not.toHaveProperty(
      'lang',
    )
  })

  it('a language without a translation stays English', () => {
    setDesktopLocale('fi-FI')
    expect(deriveTrayState([], NOW).text).toBe('No vaults yet')
  })
})

describe('the files that show words outside the window write none in place', () => {
  const FILES = [
    'src/main/electron/tray.ts',
    'src/main/electron/tray-menu.ts',
    'src/main/core/vaults/tray-state.ts',
    'src/main/core/vaults/vault-notices.ts',
    'src/main/core/vaults/checkin-schedule.ts',
    'src/main/core/session-wiring.ts',
  ]
  for (const file of FILES) {
    it(file, () => {
      const findings = scan(join(ROOT, file)).map((f) => `${f.file}:${f.line} ${f.why}: ${f.text}`)
      expect(findings.join('\n')).toBe('')
    })
  }

  it('the scan catches a notice written in place', () => {
    const probe = `export const notice = () => ({ title: 'Backup finished', body: \`\${1} files stored for you.\` })`
    expect(scan(join(ROOT, 'src/main/core/vaults/probe.ts'), probe).map((f) => f.why)).toEqual([
      'sentence in code',
      'sentence in code',
    ])
  })
})
