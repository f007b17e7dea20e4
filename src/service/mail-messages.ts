// The text of every e-mail the service sends: plain messages with the links a person needs.
import { LIMITS, SSS_PRESET_SHAPE, type SssPreset } from '../shared/api'
import { isolateName } from '../shared/untrusted-text'

const signature =
  '\n-- \nVault Desktop, the digital-inheritance vault. This message was sent by a Vault Service.\n'

export function guardianInvitation(p: {
  guardianName: string
  ownerEmail: string
  vaultId: string
  preset: SssPreset
  baseUrl: string
  token: string
}) {
  const { threshold, shares } = SSS_PRESET_SHAPE[p.preset]
  const link = (action: string) => `${p.baseUrl}/guardian/${p.token}/${action}`
  return {
    subject: `${p.ownerEmail} asks you to be a guardian of their digital-inheritance vault`,
    body: `Hello ${isolateName(p.guardianName)},

${p.ownerEmail} would like you to be one of the guardians of their digital-inheritance vault (${p.vaultId}).

What it means: the key to the vault is split into ${shares} shares, one for each guardian. Any ${threshold} of them
together can recover the vault for the owner's heirs; fewer reveal nothing. ${p.ownerEmail} will hand you your
share as a printed guardian kit (words and a QR code). Keep it somewhere safe and private.

Accept:  ${link('accept')}
Decline: ${link('decline')}

If something happens to ${p.ownerEmail} and their heirs need the vault, open this link to claim a release.
It only counts after you accepted, and only when the vault is set to release on a guardian claim:
Claim:   ${link('claim')}

Once you have your kit, check now and then that you still have it: type the check code printed on it
(not the words) on this page. Only the code travels, and it cannot open anything:
Check my kit: ${link('check')}

Keep this e-mail: the links are personal to you. If you did not expect it, you can decline or ignore it.
${signature}`,
  }
}

/** A vault as its owner reads it: its name when it has one, with the id (what support and the app show). */
function vaultCalled(p: { vaultId: string; vaultName?: string | null }): string {
  return p.vaultName ? `“${p.vaultName}” (${p.vaultId})` : p.vaultId
}

export function contestationAlert(p: {
  day: number
  vaultId: string
  vaultName?: string | null
  reason: string
  startedAt: string
  endsAt: string
  baseUrl: string
  /** The guardians whose claims started the release (day 0 of a guardian_claim release), else none. */
  claims?: readonly ClaimMade[]
}) {
  const daysLeft = LIMITS.contestationDays - p.day
  const claimedBy = p.claims?.length
    ? `\nThese guardians claimed it, saying you have died or can no longer act:\n${claimLines(p.claims, readableDate, 'on')}\n`
    : ''
  const urgency =
    p.day === 0 ? 'A release of your vault has started' : `Reminder (day ${p.day}): your vault is releasing`
  return {
    subject: `${urgency}: ${daysLeft} days left to cancel`,
    body: `A release of your vault ${vaultCalled(p)} started on ${readableDate(p.startedAt)} (${readableInstants(p.reason)}).
${claimedBy}
Unless you cancel it, your heirs will be given access to the vault on ${readableDate(p.endsAt)}, ${daysLeft} days from day ${p.day} of the
${LIMITS.contestationDays}-day contestation period.

If you are fine and this is a mistake, cancel the release now: in the Vault Desktop app, open the vault and press
"Cancel release". Any copy of Vault Desktop connected to this service (${p.baseUrl}) with your key can do it.

You will be reminded on days ${LIMITS.contestationAlertDays.join(', ')} of the period.
${signature}`,
  }
}

/** What a message to an heir (real or practice) is about: the vault, their token and the guardians to ask. */
interface ToHeir {
  heirName: string
  ownerEmail: string
  vaultId: string
  preset: SssPreset
  baseUrl: string
  token: string
  guardians: { name: string; email: string }[]
}

/** The guardians an heir asks for their kits, one line each; `none` when the owner recorded none. */
const guardianList = (guardians: ToHeir['guardians'], none: string) =>
  guardians.length
    ? guardians.map((g) => `  - ${isolateName(g.name)} <${g.email}>`).join('\n')
    : `  (${none})`

/** The recovery page this service serves (recovery-page.ts): its address and the SHA-256 of its bytes. */
export interface ServedRecoveryPage {
  url: string
  sha256Hex: string
}

export function heirNotification(p: ToHeir & { recoveryPage?: ServedRecoveryPage }) {
  const { threshold } = SSS_PRESET_SHAPE[p.preset]
  const guardianLines = guardianList(
    p.guardians,
    'the owner recorded no guardians; look for their guardian kits among their papers',
  )
  return {
    subject: `You have been given access to the digital-inheritance vault of ${p.ownerEmail}`,
    body: `Hello ${isolateName(p.heirName)},

${p.ownerEmail} named you as an heir of their digital-inheritance vault (${p.vaultId}). Its release is complete:
you can now download its files. They are encrypted; to open them you need the vault key, which ${threshold} of the
guardians below can rebuild together from their guardian kits.

1. Your personal access token (keep it private; it opens this one vault, read-only):
     ${p.token}
   Vault Service: ${p.baseUrl}
   Vault id:      ${p.vaultId}

2. Ask ${threshold} of these guardians for their guardian kit (words or QR code):
${guardianLines}

3. Recover the files. Each way below downloads every file, checks that it is exactly what the owner
   stored, and writes the original files into a folder you choose. If it is interrupted, run it again:
   it continues where it stopped.
   - With the Vault Desktop app: open it, choose "Recovery" on the left, copy the service address,
     your access token and the vault id from this e-mail, and enter the guardians' kits.
${
  p.recoveryPage
    ? `   - With nothing to install, in a web browser (a computer or a phone): open the recovery page
       ${p.recoveryPage.url}
     and enter the address, token and vault id above and the guardians' kits. Its SHA-256 is
       ${p.recoveryPage.sha256Hex}
     the same value RECOVERY.md and the guardians' kits print for the page of their version. A page
     served by the service is only as trustworthy as the service: save it, check its SHA-256 (RECOVERY.md
     says how) and open the saved copy; it also works offline with copies of the encrypted files.
`
    : ''
}   - With the command-line recovery tool (part of Vault Desktop; needs Node.js 20 or newer):
       npm run recover -- --service ${p.baseUrl} --token ${p.token} \\
         --share-words "<one guardian's words>" --share-words "<another guardian's words>" --out <folder>
     (\`npm run recover -- --help\` explains every option.)
   Vault Desktop and its recovery tool are free, open-source software ("vault-desktop"): any copy works,
   including one on the owner's own computer. Your files do not expire; take the time you need.

The file format is openly documented, so the files stay recoverable without any company's help.
${signature}`,
  }
}

export function releaseCancelled(p: { vaultId: string; vaultName?: string | null; cancelledAt: string }) {
  return {
    subject: 'The release of your vault was cancelled',
    body: `The release of your vault ${vaultCalled(p)} was cancelled on ${readableDate(p.cancelledAt)}. Your vault is active again.
If you did not cancel it yourself, check who holds your API keys and revoke the ones you do not recognise.
${signature}`,
  }
}

/**
 * A date as people read it: "Tue, 08 Jan 2030 00:00 UTC". The service knows no reader's language or
 * time zone, so it says UTC; the app shows the same instants in the reader's own format.
 */
const readableDate = (iso: string) => new Date(iso).toUTCString().replace(/:\d\d GMT$/, ' UTC')

/** A recorded sentence ("no check-in by the deadline 2030-01-08T00:00:00.000Z") with its instants readable. */
const readableInstants = (text: string) =>
  text.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?Z/g, (iso) => readableDate(iso))

export function mailTest(p: { accountEmail: string; baseUrl: string; at: string }) {
  return {
    subject: 'Test message from your Vault Service (nothing to do)',
    body: `Hello,

this is a test message from the Vault Service at ${p.baseUrl}, sent on ${p.at} because someone using the
account ${p.accountEmail} asked for one (Vault Desktop: "Send test e-mail").

It shows that the service can send e-mail: guardian invitations, release alerts and the heirs' access
instructions will reach people the same way. Nothing needs doing; you can delete this message.
${signature}`,
  }
}

export function rehearsalHeirMessage(p: ToHeir & { sampleFilename: string; expiresAt: string }) {
  const { threshold } = SSS_PRESET_SHAPE[p.preset]
  const guardianLines = guardianList(
    p.guardians,
    'no guardian got a practice kit; ask the owner which guardians take part',
  )
  return {
    subject: `[PRACTICE] A practice run of ${p.ownerEmail}'s digital-inheritance vault (nothing has happened)`,
    body: `Hello ${isolateName(p.heirName)},

THIS IS A PRACTICE. Nothing has happened to ${p.ownerEmail}: they asked for this practice run so that you
know what to do one day, and so that they can see it works. No release has started.

${p.ownerEmail} named you as an heir of their digital-inheritance vault (${p.vaultId}). This practice uses
PRACTICE KITS, not the real guardian kits: each guardian below was sent one by e-mail with this practice.
They are worthless for the vault and stop working on ${readableDate(p.expiresAt)}. With them you recover one
practice file, "${isolateName(p.sampleFilename)}", made for this practice; the vault's own files stay closed.

1. Your practice access code (it opens only the practice file, until ${readableDate(p.expiresAt)}):
     ${p.token}
   Vault Service: ${p.baseUrl}
   Vault id:      ${p.vaultId}

2. Ask ${threshold} of these guardians for their PRACTICE kit (its words). Do not ask for, and do not
   accept, anyone's real guardian kit during a practice:
${guardianLines}

3. Recover the practice file:
   - With the Vault Desktop app: open it, choose "Recovery" on the left, copy the service address,
     the practice access code and the vault id from this e-mail, and enter the practice kits.
     The app tells the owner's service when the practice kits opened the practice file.
   - With the command-line recovery tool (part of Vault Desktop; needs Node.js 20 or newer):
       npm run recover -- --service ${p.baseUrl} --token ${p.token} \\
         --share-words "<one practice kit's words>" --share-words "<another practice kit's words>" --out <folder>
     (\`npm run recover -- --help\` explains every option.)

The practice access and the practice kits end by themselves on ${readableDate(p.expiresAt)}. Keep this e-mail
as a reminder of the steps. On the real day you will get a message without [PRACTICE], with an access code to
every file, and you will ask the guardians for their real guardian kits.
${signature}`,
  }
}

export function rehearsalGuardianMessage(p: {
  guardianName: string
  ownerEmail: string
  vaultId: string
  heirName: string
  heirEmail: string
  practiceKitWords: string
  expiresAt: string
}) {
  return {
    subject: `[PRACTICE] ${isolateName(p.heirName)} will ask for your practice kit: a practice run of ${p.ownerEmail}'s vault`,
    body: `Hello ${isolateName(p.guardianName)},

THIS IS A PRACTICE. Nothing has happened to ${p.ownerEmail}: they started a practice run of their
digital-inheritance vault (${p.vaultId}) so that their heir learns the steps. No release has started.

Your PRACTICE KIT for this practice (worthless for the vault; it stops working on ${readableDate(p.expiresAt)}):

${p.practiceKitWords}

${isolateName(p.heirName)} <${p.heirEmail}> will ask you for a kit. Give them THIS PRACTICE KIT (the words above), in
the way you would hand over your real kit on the day, and check that the request really comes from
${isolateName(p.heirName)}.

Do NOT give anyone your real guardian kit during a practice. Keep it where it is: it is only for the real
day, which is never announced as a practice. The practice ends on ${readableDate(p.expiresAt)}.
${signature}`,
  }
}

/** `link`: the one-step check-in link, only for a vault whose owner opted in; null: the app only. */
export function checkInReminder(p: {
  vault: string
  dueAt: string
  link: string | null
  cost: number
  periodDays: number
}) {
  const how = p.link
    ? `Check in with one click. The page asks you to confirm; checking in there is the same as in the app:
it costs ${p.cost} credits and moves your next deadline to ${p.periodDays} days from then.
  ${p.link}

The link is personal, works once, and only for this deadline. You can also check in in the Vault Desktop
app (its tray icon has "Check in"). If you checked in already, ignore this message.`
    : `Check in in the Vault Desktop app (its tray icon has "Check in"): it costs ${p.cost} credits and moves
your next deadline to ${p.periodDays} days from then. This message carries no check-in link, as you chose:
reading your e-mail is not enough to check in for you. If you checked in already, ignore this message.`
  return {
    subject: `Check in by ${readableDate(p.dueAt)}: your vault ${p.vault} is waiting`,
    body: `Hello,

your vault ${p.vault} has a dead man's switch: unless you check in by ${readableDate(p.dueAt)},
a release to your heirs starts (you would still have ${LIMITS.contestationDays} days to cancel it).

${how}
${signature}`,
  }
}

/** To a guardian: please check you still hold your kit (after a new split, or a year after the last check). */
export function kitCheckReminder(p: {
  guardianName: string
  ownerEmail: string
  vaultId: string
  /** The kit-check link (it can confirm this guardian's kit and nothing else). */
  link: string
  /** When the owner made new kits, for the first reminder of a split; null for a yearly reminder. */
  newKitsOn: string | null
  lastConfirmedAt: string | null
  confirmWithinDays: number
}) {
  const why = p.newKitsOn
    ? `${p.ownerEmail} made new guardian kits for their vault (${p.vaultId}) on ${readableDate(p.newKitsOn)}, and will
give you yours (or has done so). Once you have it, please check it. Give your old kit back or destroy it as
${p.ownerEmail} asks: the new kits and the old ones do not combine.`
    : `It is a year since you last checked your guardian kit for ${p.ownerEmail}'s vault (${p.vaultId})${
        p.lastConfirmedAt ? ` (on ${readableDate(p.lastConfirmedAt)})` : ''
      }.
Papers get lost over the years; please check that you still have yours.`
  return {
    subject: `Please check that you still have your guardian kit for ${p.ownerEmail}`,
    body: `Hello ${isolateName(p.guardianName)},

${why}

How: find your kit and type the check code printed on it (a short code like 1QH4-0CZS-D, not the words)
on this page. Only the code travels, and it cannot open anything; never type or send the words.
  ${p.link}

The Vault Desktop app and its recovery tool can also check a kit, from its words, without sending them.
If you cannot find your kit, tell ${p.ownerEmail}: they can make new kits for everyone. If you do not confirm
within ${p.confirmWithinDays} days, ${p.ownerEmail} is told that you have not.
${signature}`,
  }
}

/** To the owner: a guardian did not confirm their kit within the period after a reminder (sent once). */
export function kitCheckOverdue(p: {
  guardianName: string
  vault: string
  lastConfirmedAt: string | null
  kitsMadeAt: string
  remindedAt: string
}) {
  const name = isolateName(p.guardianName)
  const since = p.lastConfirmedAt
    ? `since ${readableDate(p.lastConfirmedAt)}`
    : `since you made the current kits on ${readableDate(p.kitsMadeAt)}`
  return {
    subject: `${name} has not confirmed their guardian kit ${since}`,
    body: `Hello,

${name}, a guardian of your vault ${p.vault}, has not confirmed their guardian kit ${since}. They were
asked to check it on ${readableDate(p.remindedAt)}.

A kit nobody can find is a kit your heirs cannot use, and a lost kit may be in someone else's hands. Ask
${name} whether they still have theirs. If it is lost, rotate the vault key in the Vault Desktop app and hand
out the new kits: a lost kit, together with other kits of its split, opens the vault until the key changes.
The app's readiness view shows when each guardian last confirmed.

You are told once per reminder; ${name} is reminded again in a year.
${signature}`,
  }
}

// ---- The circle told of claims and releases (guardians and the owner) ----
// Nobody's language is known to the service, so these go in English and Spanish in one message. They
// carry no token and nothing that opens the vault: a guardian sees where a claim stands through the
// claim link of their own invitation, and the owner cancels in the app.

/** A date in Spanish, with the exact instant after it: "8 ene 2030, 0:00 UTC (2030-01-08T00:00:00.000Z)". */
const fechaLegible = (iso: string) =>
  `${new Intl.DateTimeFormat('es', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(new Date(iso))} UTC (${iso})`

/** One message in both languages: English first, then Spanish, under one signature. */
function inBothLanguages(en: { subject: string; body: string }, es: { subject: string; body: string }) {
  return {
    subject: `${en.subject} / ${es.subject}`,
    body: `${en.body.trim()}

---------- En español ----------

${es.body.trim()}
${signature}`,
  }
}

/** A guardian who claimed, and when. */
export interface ClaimMade {
  name: string
  at: string
}

const claimLines = (claims: readonly ClaimMade[], on: (iso: string) => string, word: string) =>
  claims.map((c) => `  - ${isolateName(c.name)}, ${word} ${on(c.at)}`).join('\n')

/**
 * A guardian claimed a release, short of the threshold. `toOwner`: the owner's copy, which says how to
 * stop it; a guardian's copy says what comes next and where to see it.
 */
export function guardianClaimNotice(p: {
  claimer: string
  ownerEmail: string
  vaultId: string
  claims: readonly ClaimMade[]
  threshold: number
  toOwner: boolean
  recipientName?: string
}) {
  const claimer = isolateName(p.claimer)
  const count = p.claims.length
  const hello = p.recipientName ? isolateName(p.recipientName) : null
  const enNext = p.toOwner
    ? `If you are alive and well, nothing opens now: a release starts only when ${p.threshold} guardians have
claimed, and even then you have ${LIMITS.contestationDays} days to cancel it in the Vault Desktop app (open the
vault and press "Cancel release"), which also clears every claim. Talk to ${claimer} and your other guardians
now. Changing the vault's release trigger in the app clears the claims too.`
    : `A release starts when ${p.threshold} guardians have claimed. ${p.ownerEmail} is told of every claim and, once a
release starts, has ${LIMITS.contestationDays} days to cancel it before the heirs are given access.
If you know something has happened to ${p.ownerEmail}, you can add your own claim with the claim link of your
guardian invitation e-mail; that page also shows where the claim stands. If you think this claim is a
mistake, talk to ${claimer} and to ${p.ownerEmail}.`
  const esNext = p.toOwner
    ? `Si estás bien, ahora no se abre nada: una liberación solo empieza cuando han reclamado ${p.threshold}
guardianes, y aun entonces tienes ${LIMITS.contestationDays} días para cancelarla en la aplicación Vault Desktop
(abre la bóveda y pulsa «Cancelar liberación»), lo que además borra todas las reclamaciones. Habla ya con
${claimer} y con tus otros guardianes. Cambiar en la aplicación el disparador de liberación de la bóveda
también borra las reclamaciones.`
    : `Una liberación empieza cuando han reclamado ${p.threshold} guardianes. ${p.ownerEmail} recibe un aviso de cada
reclamación y, si empieza una liberación, tiene ${LIMITS.contestationDays} días para cancelarla antes de que
los herederos obtengan acceso. Si sabes que le ha pasado algo a ${p.ownerEmail}, puedes añadir tu reclamación
con el enlace de reclamación de tu correo de invitación de guardián; esa página muestra también cómo va la
reclamación. Si crees que es un error, habla con ${claimer} y con ${p.ownerEmail}.`
  const whose = p.toOwner ? 'your vault' : `the vault of ${p.ownerEmail}`
  const cuya = p.toOwner ? 'tu bóveda' : `la bóveda de ${p.ownerEmail}`
  return inBothLanguages(
    {
      subject: `${claimer} claimed a release of ${whose} (${count} of ${p.threshold} claims needed)`,
      body: `${hello ? `Hello ${hello},\n\n` : 'Hello,\n\n'}${claimer}, a guardian, claimed a release of ${whose} (${p.vaultId}): they say
${p.toOwner ? 'you have' : `${p.ownerEmail} has`} died or can no longer act. ${count} of the ${p.threshold} guardian claims needed to start a
release have been made:
${claimLines(p.claims, readableDate, 'on')}

${enNext}

This message opens nothing: the vault stays closed and no kit is asked for.`,
    },
    {
      subject: `${claimer} reclamó una liberación de ${cuya} (${count} de ${p.threshold} reclamaciones necesarias)`,
      body: `${hello ? `Hola, ${hello}:\n\n` : 'Hola:\n\n'}${claimer}, guardián, reclamó una liberación de ${cuya} (${p.vaultId}): afirma que
${p.toOwner ? 'has fallecido o ya no puedes actuar' : `${p.ownerEmail} ha fallecido o ya no puede actuar`}. Se han hecho ${count} de las ${p.threshold}
reclamaciones de guardianes necesarias para iniciar una liberación:
${claimLines(p.claims, fechaLegible, 'el')}

${esNext}

Este mensaje no abre nada: la bóveda sigue cerrada y no se pide ningún kit.`,
    },
  )
}

/**
 * To a guardian: a release of the vault started (any trigger); `claims` names the guardians whose claims
 * started it (guardian_claim), empty otherwise.
 */
export function releaseStartedToGuardian(p: {
  guardianName: string
  ownerEmail: string
  vaultId: string
  startedAt: string
  endsAt: string
  claims: readonly ClaimMade[]
}) {
  const name = isolateName(p.guardianName)
  const enWhy = p.claims.length
    ? `It started because enough guardians claimed it:\n${claimLines(p.claims, readableDate, 'on')}`
    : `It started without a guardian claim (a missed check-in deadline, or by hand).`
  const esWhy = p.claims.length
    ? `Empezó porque reclamaron suficientes guardianes:\n${claimLines(p.claims, fechaLegible, 'el')}`
    : `Empezó sin reclamación de guardianes (una confirmación no hecha a tiempo, o a mano).`
  return inBothLanguages(
    {
      subject: `A release of ${p.ownerEmail}'s vault has started: heirs get access on ${readableDate(p.endsAt)} unless it is cancelled`,
      body: `Hello ${name},

a release of the digital-inheritance vault of ${p.ownerEmail} (${p.vaultId}), of which you are a guardian,
started on ${readableDate(p.startedAt)}. ${enWhy}

This opens the ${LIMITS.contestationDays}-day contestation period: ${p.ownerEmail} has been told and can cancel
the release until ${readableDate(p.endsAt)}. If it is not cancelled by then, the heirs are given access to the
encrypted files and will ask guardians for their kits.

Nothing is asked of you now. Keep your guardian kit safe; give it only to an heir whose request you have
checked is really theirs. The claim link of your invitation e-mail shows where the release stands.`,
    },
    {
      subject: `Ha empezado una liberación de la bóveda de ${p.ownerEmail}: los herederos obtienen acceso el ${fechaLegible(p.endsAt)} salvo que se cancele`,
      body: `Hola, ${name}:

el ${fechaLegible(p.startedAt)} empezó una liberación de la bóveda de herencia digital de ${p.ownerEmail}
(${p.vaultId}), de la que eres guardián. ${esWhy}

Así empieza el periodo de impugnación de ${LIMITS.contestationDays} días: ${p.ownerEmail} ha recibido un aviso y
puede cancelar la liberación hasta el ${fechaLegible(p.endsAt)}. Si no la cancela, los herederos obtienen
acceso a los archivos cifrados y pedirán sus kits a los guardianes.

Por ahora no se te pide nada. Guarda bien tu kit de guardián y entrégalo solo a un heredero cuya petición
hayas comprobado. El enlace de reclamación de tu correo de invitación muestra cómo va la liberación.`,
    },
  )
}

/** To a guardian: the owner cancelled the release (or the claims before it); the vault is active again. */
export function releaseCancelledToGuardian(p: {
  guardianName: string
  ownerEmail: string
  vaultId: string
  cancelledAt: string
}) {
  const name = isolateName(p.guardianName)
  return inBothLanguages(
    {
      subject: `${p.ownerEmail} cancelled the release of their vault`,
      body: `Hello ${name},

${p.ownerEmail} cancelled the release of their digital-inheritance vault (${p.vaultId}) on
${readableDate(p.cancelledAt)}, from their own account: the vault is active again, the heirs are not given
access, and every guardian claim made so far no longer counts.

Nothing is asked of you. Keep your guardian kit where it is.`,
    },
    {
      subject: `${p.ownerEmail} canceló la liberación de su bóveda`,
      body: `Hola, ${name}:

${p.ownerEmail} canceló la liberación de su bóveda de herencia digital (${p.vaultId}) el
${fechaLegible(p.cancelledAt)}, desde su propia cuenta: la bóveda vuelve a estar activa, los herederos no
obtienen acceso y las reclamaciones de guardianes hechas hasta ahora dejan de contar.

No se te pide nada. Guarda tu kit de guardián donde está.`,
    },
  )
}
