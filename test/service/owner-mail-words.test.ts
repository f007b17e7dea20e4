// The owner's release e-mails as a person reads them (issue 30, point 18): the vault by its name, dates
// as words, and the app's Cancel rather than an API call with a key.
import { describe, expect, it } from 'vitest'
import { contestationAlert, releaseCancelled } from '../../src/service/mail-messages'

describe("the owner's release e-mails", () => {
  it('name the vault, write dates in words and send the owner to Cancel release in the app', () => {
    const alert = contestationAlert({
      day: 0,
      vaultId: 'vlt_family',
      vaultName: 'Family papers',
      reason: 'no check-in by the deadline 2030-01-08T00:00:00.000Z',
      startedAt: '2030-01-08T00:02:00.000Z',
      endsAt: '2030-02-07T00:02:00.000Z',
      baseUrl: 'https://vault.example.com',
    })
    expect(alert.body).toContain(
      'A release of your vault “Family papers” (vlt_family) started on Tue, 08 Jan 2030 00:02 UTC',
    )
    expect(alert.body).toContain('(no check-in by the deadline Tue, 08 Jan 2030 00:00 UTC)')
    expect(alert.body).toContain('on Thu, 07 Feb 2030 00:02 UTC')
    expect(alert.body).toContain('"Cancel release"')
    expect(alert.body).not.toMatch(/sk_human_|POST |\d{4}-\d\d-\d\dT/)

    const cancelled = releaseCancelled({
      vaultId: 'vlt_family',
      vaultName: 'Family papers',
      cancelledAt: '2030-01-09T10:30:00.000Z',
    })
    expect(cancelled.body).toContain(
      'The release of your vault “Family papers” (vlt_family) was cancelled on Wed, 09 Jan 2030 10:30 UTC.',
    )
    // Without a name, the id alone.
    expect(releaseCancelled({ vaultId: 'vlt_x', cancelledAt: '2030-01-09T10:30:00.000Z' }).body).toContain(
      'your vault vlt_x was cancelled',
    )
  })
})
