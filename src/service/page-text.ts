// Every string of the HTML pages the service shows to people who have no app (guardian links, the check-in
// link), one catalogue per language. The language follows the browser's Accept-Language: Spanish when it
// prefers Spanish to English, else English. Dates and numbers go through the shared formatting layer.
import { type LocaleFormat, localeFormat, type PluralForms } from '../shared/locale-format'

export type PageLanguage = 'en' | 'es'
type GuardianStatus = 'pending' | 'accepted' | 'declined'

export interface PageText {
  readonly lang: PageLanguage
  linkNotValidTitle: string
  notPossibleTitle: string
  tooManyAttemptsTitle: string
  tooManyAttempts(limit: number, retryAfterSeconds: number): string
  foreignOriginTitle: string
  foreignOrigin: string
  guardian: {
    unknownLink: string
    badAction: string
    acceptTitle: string
    asksYou(owner: string, name: string, status: GuardianStatus): string
    shareExplained(threshold: number): string
    acceptButton: string
    declineTitle: string
    declineButton: string
    claimTitle: string
    claimWhen(owner: string): string
    claimThreshold(threshold: number, owner: string): string
    claimButton: string
    acceptedTitle: string
    accepted(name: string, owner: string): string
    keepInvitation: string
    declinedTitle: string
    declined(owner: string): string
    alreadyAnswered(status: GuardianStatus, owner: string): string
    alreadyReleasingTitle: string
    alreadyReleasing(owner: string, vaultState: string): string
    releaseStartedTitle: string
    releaseStarted(claims: number, owner: string): string
    claimRecordedTitle: string
    claimRecorded(claims: number, threshold: number): string
    claimNeedsAcceptance(status: GuardianStatus): string
    claimWrongTrigger(code: string | null): string
    /** Where a claim stands (the claim page): one of these, then `circleOnly` when names are shown. */
    standNone: string
    standClaims(count: number, threshold: number, claims: readonly { name: string; on: string }[]): string
    standReleasing(heirsOn: string, owner: string): string
    startedByClaims(claims: readonly { name: string; on: string }[]): string
    standCancelled(on: string, owner: string): string
    standReleased(on: string): string
    circleOnly: string
  }
  checkIn: {
    title: string
    intro(vault: string, due: string): string
    whatItDoes(days: number, cost: number): string
    button: string
    doneTitle: string
    done(vault: string, nextDue: string): string
    unknownLink: string
    usedTitle: string
    used(usedOn: string, nextDue: string): string
    expiredTitle: string
    checkedInSince(nextDue: string): string
    noSwitchAnyMore: string
    linksOff: string
    releasingTitle: string
    releasing(vault: string, vaultState: string): string
    notEnoughCreditsTitle: string
    notEnoughCredits(cost: number, balance: number): string
  }
  kitCheck: {
    title: string
    intro(name: string, owner: string): string
    onlyTheCode: string
    lastConfirmed(on: string): string
    fieldLabel: string
    button: string
    unknownLink: string
    confirmedTitle: string
    confirmed(owner: string): string
    olderSplitTitle: string
    olderSplit(owner: string, newKitsOn: string | null): string
    otherGuardianTitle: string
    otherGuardian(owner: string): string
    typoTitle: string
    typo: string
    unknownTitle: string
    unknown(owner: string): string
    notRegisteredTitle: string
    notRegistered(owner: string): string
    tooMany(limit: number, retryAfterSeconds: number): string
  }
}

function english(f: LocaleFormat): PageText {
  const guardians: PluralForms = { one: 'guardian', other: 'guardians' }
  const credits: PluralForms = { one: 'credit', other: 'credits' }
  const days: PluralForms = { one: 'day', other: 'days' }
  const triggers: Record<string, string> = {
    dead_man_switch: "a dead man's switch",
    manual: 'a manual release',
    guardian_claim: 'guardian claims',
  }
  const trigger = (code: string | null) => (code ? (triggers[code] ?? code) : 'no trigger yet')
  return {
    lang: 'en',
    linkNotValidTitle: 'Link not valid',
    notPossibleTitle: 'Not possible',
    tooManyAttemptsTitle: 'Too many attempts',
    tooManyAttempts: (limit, seconds) =>
      `Too many links or keys that matched nothing came from this address (${f.number(limit)} in a minute). Wait ${f.duration(seconds)} and try again. If you copied the link from an e-mail, check that it is complete.`,
    foreignOriginTitle: 'Sent from another site',
    foreignOrigin:
      'This form was sent from another web site, so nothing was done. Open the link from your e-mail directly and press the button on that page.',
    guardian: {
      unknownLink: 'This guardian link is not valid any more: the owner may have removed you as a guardian.',
      badAction: 'This guardian link is not valid: it must end in /accept, /decline or /claim.',
      acceptTitle: 'Become a guardian',
      asksYou: (owner, name, status) =>
        `${owner} asks you, ${name}, to be a guardian of their vault. Your status now: ${status}.`,
      shareExplained: (threshold) =>
        `You will hold one share of the vault key; ${f.count(threshold, guardians)} together can recover it for the heirs.`,
      acceptButton: 'Accept',
      declineTitle: 'Decline the invitation',
      declineButton: 'Decline',
      claimTitle: 'Claim a release',
      claimWhen: (owner) =>
        `Use this only if ${owner} has died or can no longer act, and their heirs need the vault.`,
      claimThreshold: (threshold, owner) =>
        `When ${f.count(threshold, guardians)} have claimed, a release starts. ${owner} is alerted and has 30 days to cancel it.`,
      claimButton: 'Claim a release',
      acceptedTitle: 'You are a guardian',
      accepted: (name, owner) =>
        `Thank you, ${name}. ${owner} will give you your guardian kit: keep it safe and private.`,
      keepInvitation:
        'Keep the invitation e-mail: its claim link is how you start a release if it is ever needed.',
      declinedTitle: 'Invitation declined',
      declined: (owner) => `You declined to be a guardian for ${owner}. Nothing more will be asked of you.`,
      alreadyAnswered: (status, owner) =>
        `You already ${status} this invitation. To change your answer, ask ${owner} to remove and re-invite you.`,
      alreadyReleasingTitle: 'A release is already under way',
      alreadyReleasing: (owner, vaultState) =>
        `The vault of ${owner} is already ${vaultState}. Nothing more is needed from you now.`,
      releaseStartedTitle: 'Release started',
      releaseStarted: (claims, owner) =>
        `${f.count(claims, guardians)} have claimed, so the release has started. ${owner} is alerted and can cancel it during the next 30 days; after that the heirs get access.`,
      claimRecordedTitle: 'Claim recorded',
      claimRecorded: (claims, threshold) =>
        `Your claim is recorded: ${f.number(claims)} of the ${f.number(threshold)} guardian claims needed to start a release.`,
      claimNeedsAcceptance: (status) =>
        `Only guardians who accepted their invitation can claim; yours is ${status}. Accept it first with the link in the invitation e-mail.`,
      claimWrongTrigger: (code) =>
        `This vault does not release on guardian claims (it is set to ${trigger(code)}), so nothing was recorded.`,
      standNone: 'Where it stands: no guardian has claimed a release.',
      standClaims: (count, threshold, claims) =>
        `Where it stands: ${f.number(count)} of ${f.count(threshold, guardians)} have claimed: ${claims.map((c) => `${c.name} on ${c.on}`).join('; ')}.`,
      standReleasing: (heirsOn, owner) =>
        `Where it stands: a release is under way. The heirs get access on ${heirsOn} unless ${owner} cancels it.`,
      startedByClaims: (claims) =>
        `It started with the claims of ${claims.map((c) => `${c.name} on ${c.on}`).join('; ')}.`,
      standCancelled: (on, owner) =>
        `Where it stands: ${owner} cancelled the release on ${on}; no claim counts now.`,
      standReleased: (on) => `Where it stands: the vault was released on ${on}; the heirs have access.`,
      circleOnly:
        "Guardians' names are shown only to the guardians of this vault (the circle the owner chose), so that you can talk to each other. Please keep them to yourselves.",
    },
    checkIn: {
      title: 'Check in',
      intro: (vault, due) =>
        `Your vault ${vault} expects a check-in by ${due}; without one, a release to your heirs starts.`,
      whatItDoes: (period, cost) =>
        `Press the button to check in now: the next check-in will be due ${f.count(period, days)} from today, and ${f.count(cost, credits)} are charged, as for a check-in in the app.`,
      button: 'Check in now',
      doneTitle: 'You are checked in',
      done: (vault, nextDue) => `Thank you. Your vault ${vault} expects its next check-in by ${nextDue}.`,
      unknownLink:
        'This check-in link is not valid. Copy it completely from your reminder e-mail, or check in in the Vault Desktop app.',
      usedTitle: 'Link already used',
      used: (usedOn, nextDue) =>
        `You checked in with this link on ${usedOn}; a link works once. Your next check-in is due by ${nextDue}; you will get a new reminder before then.`,
      expiredTitle: 'Link expired',
      checkedInSince: (nextDue) =>
        `This link was for an earlier deadline, and you have checked in since. Your next check-in is due by ${nextDue}; nothing to do now.`,
      noSwitchAnyMore:
        "This vault no longer releases on a dead man's switch, so there is nothing to check in to. Nothing was charged.",
      linksOff:
        'One-step check-in links were turned off for this vault after this link was sent, so it no longer works, even if they are turned on again. Check in in the Vault Desktop app. Nothing was charged.',
      releasingTitle: 'A release is under way',
      releasing: (vault, vaultState) =>
        `Your vault ${vault} is ${vaultState}, so a check-in is no longer possible. If you did not want this, open the Vault Desktop app and cancel the release while the contestation period lasts.`,
      notEnoughCreditsTitle: 'Not enough credits',
      notEnoughCredits: (cost, balance) =>
        `A check-in costs ${f.count(cost, credits)} and your balance is ${f.count(balance, credits)}, so nothing was done. Add credits in the Vault Desktop app, then open this link again.`,
    },
    kitCheck: {
      title: 'Check my kit',
      intro: (name, owner) =>
        `${name}, you hold a guardian kit for the vault of ${owner}. Type the check code printed on your kit to confirm that you still have it.`,
      onlyTheCode:
        'The check code is a short code such as 1QH4-0CZS-D, printed apart from the words. Only the code is sent, and it cannot open anything. Never type the words of your kit here or anywhere else.',
      lastConfirmed: (on) => `You last confirmed your kit on ${on}.`,
      fieldLabel: 'Check code',
      button: 'Check my kit',
      unknownLink:
        'This kit check link is not valid (any more). Use the "Check my kit" link of your guardian invitation or of the latest reminder e-mail; the owner may also have removed you as a guardian.',
      confirmedTitle: 'Kit confirmed',
      confirmed: (owner) =>
        `Thank you: this is your current kit for the vault of ${owner}, and ${owner} can now see that you have it. Put it back where you keep it.`,
      olderSplitTitle: 'This is an older kit',
      olderSplit: (owner, on) =>
        `This code is of an older kit: ${owner} made new kits${on ? ` on ${on}` : ''}. Ask ${owner} for your new kit, and give the old one back or destroy it as they ask.`,
      otherGuardianTitle: "Another guardian's kit",
      otherGuardian: (owner) =>
        `This code belongs to another guardian's kit of this vault, not to yours. Check that you typed the code of your own kit; if you hold someone else's kit, tell ${owner}.`,
      typoTitle: 'Not a check code',
      typo: 'This is not a check code: check for a typo. A check code has 9 letters and digits, such as 1QH4-0CZS-D; its last character catches a mistyped one.',
      unknownTitle: 'Code not recognised',
      unknown: (owner) =>
        `This is a check code, but of no kit ${owner} made for this vault: perhaps a kit of another vault. Check that you typed the code of this vault's kit, or ask ${owner}.`,
      notRegisteredTitle: 'Nothing to check yet',
      notRegistered: (owner) =>
        `${owner} has not registered a check code for your kit yet (kits made before check codes have none), so nothing was recorded. Ask ${owner} if you expected one.`,
      tooMany: (limit, seconds) =>
        `Too many codes were checked with this link (${f.number(limit)} in a minute), so this one was not. Wait ${f.duration(seconds)} and try again.`,
    },
  }
}

function spanish(f: LocaleFormat): PageText {
  const guardians: PluralForms = { one: 'guardián', other: 'guardianes' }
  const credits: PluralForms = { one: 'crédito', other: 'créditos' }
  const days: PluralForms = { one: 'día', other: 'días' }
  const triggers: Record<string, string> = {
    dead_man_switch: 'un interruptor de hombre muerto',
    manual: 'una liberación manual',
    guardian_claim: 'la reclamación de los guardianes',
  }
  const trigger = (code: string | null) => (code ? (triggers[code] ?? code) : 'ningún disparador todavía')
  const states: Record<string, string> = {
    active: 'activa',
    releasing: 'en liberación',
    released: 'liberada',
  }
  const state = (code: string) => states[code] ?? code
  // The invitation (feminine) is pending, accepted or declined.
  const invitation: Record<GuardianStatus, string> = {
    pending: 'pendiente',
    accepted: 'aceptada',
    declined: 'rechazada',
  }
  const answered: Record<GuardianStatus, string> = {
    pending: 'dejaste pendiente',
    accepted: 'aceptaste',
    declined: 'rechazaste',
  }
  return {
    lang: 'es',
    linkNotValidTitle: 'Enlace no válido',
    notPossibleTitle: 'No es posible',
    tooManyAttemptsTitle: 'Demasiados intentos',
    tooManyAttempts: (limit, seconds) =>
      `Desde esta dirección llegaron demasiados enlaces o claves que no corresponden a nada (${f.number(limit)} en un minuto). Espera ${f.duration(seconds)} y vuelve a intentarlo. Si copiaste el enlace de un correo, comprueba que esté completo.`,
    foreignOriginTitle: 'Enviado desde otro sitio',
    foreignOrigin:
      'Este formulario se envió desde otro sitio web, así que no se hizo nada. Abre directamente el enlace de tu correo y pulsa el botón de esa página.',
    guardian: {
      unknownLink:
        'Este enlace de guardián ya no es válido: puede que la persona propietaria te haya quitado como guardián.',
      badAction: 'Este enlace de guardián no es válido: debe terminar en /accept, /decline o /claim.',
      acceptTitle: 'Ser guardián',
      asksYou: (owner, name, status) =>
        `${owner} te pide, ${name}, que seas guardián de su bóveda. Tu invitación ahora: ${invitation[status]}.`,
      shareExplained: (threshold) =>
        `Guardarás una parte de la clave de la bóveda; ${f.count(threshold, guardians)} juntos pueden recuperarla para los herederos.`,
      acceptButton: 'Aceptar',
      declineTitle: 'Rechazar la invitación',
      declineButton: 'Rechazar',
      claimTitle: 'Reclamar una liberación',
      claimWhen: (owner) =>
        `Úsalo solo si ${owner} ha fallecido o ya no puede actuar, y sus herederos necesitan la bóveda.`,
      claimThreshold: (threshold, owner) =>
        `Cuando ${f.count(threshold, guardians)} hayan reclamado, empieza una liberación. ${owner} recibe un aviso y tiene 30 días para cancelarla.`,
      claimButton: 'Reclamar una liberación',
      acceptedTitle: 'Eres guardián',
      accepted: (name, owner) =>
        `Gracias, ${name}. ${owner} te dará tu kit de guardián: guárdalo en un lugar seguro y privado.`,
      keepInvitation:
        'Conserva el correo de invitación: su enlace de reclamación es la forma de iniciar una liberación si alguna vez hace falta.',
      declinedTitle: 'Invitación rechazada',
      declined: (owner) => `Rechazaste ser guardián de ${owner}. No se te pedirá nada más.`,
      alreadyAnswered: (status, owner) =>
        `Ya ${answered[status]} esta invitación. Para cambiar tu respuesta, pide a ${owner} que te quite y te vuelva a invitar.`,
      alreadyReleasingTitle: 'Ya hay una liberación en curso',
      alreadyReleasing: (owner, vaultState) =>
        `La bóveda de ${owner} ya está ${state(vaultState)}. Por ahora no se necesita nada más de ti.`,
      releaseStartedTitle: 'Liberación iniciada',
      releaseStarted: (claims, owner) =>
        `${f.count(claims, guardians)} han reclamado, así que la liberación ha empezado. ${owner} recibe un aviso y puede cancelarla durante los próximos 30 días; después, los herederos obtienen acceso.`,
      claimRecordedTitle: 'Reclamación registrada',
      claimRecorded: (claims, threshold) =>
        `Tu reclamación está registrada: ${f.number(claims)} de las ${f.number(threshold)} reclamaciones de guardianes necesarias para iniciar una liberación.`,
      claimNeedsAcceptance: (status) =>
        `Solo pueden reclamar los guardianes que aceptaron su invitación; la tuya está ${invitation[status]}. Acéptala primero con el enlace del correo de invitación.`,
      claimWrongTrigger: (code) =>
        `Esta bóveda no se libera por reclamación de los guardianes (está configurada con ${trigger(code)}), así que no se registró nada.`,
      standNone: 'Cómo va: ningún guardián ha reclamado una liberación.',
      standClaims: (count, threshold, claims) =>
        `Cómo va: han reclamado ${f.number(count)} de ${f.count(threshold, guardians)}: ${claims.map((c) => `${c.name} el ${c.on}`).join('; ')}.`,
      standReleasing: (heirsOn, owner) =>
        `Cómo va: hay una liberación en curso. Los herederos obtienen acceso el ${heirsOn} salvo que ${owner} la cancele.`,
      startedByClaims: (claims) =>
        `Empezó con las reclamaciones de ${claims.map((c) => `${c.name} el ${c.on}`).join('; ')}.`,
      standCancelled: (on, owner) =>
        `Cómo va: ${owner} canceló la liberación el ${on}; ahora no cuenta ninguna reclamación.`,
      standReleased: (on) => `Cómo va: la bóveda se liberó el ${on}; los herederos tienen acceso.`,
      circleOnly:
        'Los nombres de los guardianes solo se muestran a los guardianes de esta bóveda (el círculo que eligió la persona propietaria), para que podáis hablar entre vosotros. Por favor, no los compartáis.',
    },
    checkIn: {
      title: 'Confirmar que estás bien',
      intro: (vault, due) =>
        `Tu bóveda ${vault} espera una confirmación antes del ${due}; sin ella, empieza una liberación para tus herederos.`,
      whatItDoes: (period, cost) =>
        `Pulsa el botón para confirmar ahora: la próxima confirmación vencerá dentro de ${f.count(period, days)}, y se cobran ${f.count(cost, credits)}, como en la aplicación.`,
      button: 'Confirmar ahora',
      doneTitle: 'Confirmación registrada',
      done: (vault, nextDue) =>
        `Gracias. Tu bóveda ${vault} espera la próxima confirmación antes del ${nextDue}.`,
      unknownLink:
        'Este enlace de confirmación no es válido. Cópialo completo desde tu correo de recordatorio, o confirma en la aplicación Vault Desktop.',
      usedTitle: 'Enlace ya utilizado',
      used: (usedOn, nextDue) =>
        `Confirmaste con este enlace el ${usedOn}; cada enlace sirve una sola vez. Tu próxima confirmación vence el ${nextDue}; recibirás un nuevo recordatorio antes.`,
      expiredTitle: 'Enlace caducado',
      checkedInSince: (nextDue) =>
        `Este enlace era para un plazo anterior y ya has confirmado desde entonces. Tu próxima confirmación vence el ${nextDue}; no hace falta hacer nada ahora.`,
      noSwitchAnyMore:
        'Esta bóveda ya no se libera por un interruptor de hombre muerto, así que no hay nada que confirmar. No se cobró nada.',
      linksOff:
        'Los enlaces de confirmación en un paso se desactivaron para esta bóveda después de enviar este enlace, así que ya no funciona, aunque se vuelvan a activar. Confirma en la aplicación Vault Desktop. No se cobró nada.',
      releasingTitle: 'Hay una liberación en curso',
      releasing: (vault, vaultState) =>
        `Tu bóveda ${vault} está ${state(vaultState)}, así que ya no es posible confirmar. Si no lo querías, abre la aplicación Vault Desktop y cancela la liberación mientras dure el periodo de impugnación.`,
      notEnoughCreditsTitle: 'Créditos insuficientes',
      notEnoughCredits: (cost, balance) =>
        `Una confirmación cuesta ${f.count(cost, credits)} y tu saldo es de ${f.count(balance, credits)}, así que no se hizo nada. Añade créditos en la aplicación Vault Desktop y vuelve a abrir este enlace.`,
    },
    kitCheck: {
      title: 'Comprobar mi kit',
      intro: (name, owner) =>
        `${name}, guardas un kit de guardián de la bóveda de ${owner}. Escribe el código de comprobación impreso en tu kit para confirmar que aún lo tienes.`,
      onlyTheCode:
        'El código de comprobación es un código corto como 1QH4-0CZS-D, impreso aparte de las palabras. Solo se envía el código, y no abre nada. Nunca escribas las palabras de tu kit aquí ni en ningún otro sitio.',
      lastConfirmed: (on) => `Confirmaste tu kit por última vez el ${on}.`,
      fieldLabel: 'Código de comprobación',
      button: 'Comprobar mi kit',
      unknownLink:
        'Este enlace de comprobación no es válido (o ya no lo es). Usa el enlace «Comprobar mi kit» de tu invitación de guardián o del último correo de recordatorio; también puede que el propietario te haya quitado como guardián.',
      confirmedTitle: 'Kit confirmado',
      confirmed: (owner) =>
        `Gracias: este es tu kit actual de la bóveda de ${owner}, y ${owner} ya puede ver que lo tienes. Vuelve a guardarlo donde lo guardas.`,
      olderSplitTitle: 'Este es un kit antiguo',
      olderSplit: (owner, on) =>
        `Este código es de un kit antiguo: ${owner} hizo kits nuevos${on ? ` el ${on}` : ''}. Pide a ${owner} tu kit nuevo, y devuelve o destruye el antiguo como te indique.`,
      otherGuardianTitle: 'El kit de otro guardián',
      otherGuardian: (owner) =>
        `Este código pertenece al kit de otro guardián de esta bóveda, no al tuyo. Comprueba que escribiste el código de tu propio kit; si tienes el kit de otra persona, díselo a ${owner}.`,
      typoTitle: 'No es un código de comprobación',
      typo: 'Esto no es un código de comprobación: revisa si hay una errata. Un código de comprobación tiene 9 letras y cifras, como 1QH4-0CZS-D; su último carácter detecta uno mal escrito.',
      unknownTitle: 'Código no reconocido',
      unknown: (owner) =>
        `Es un código de comprobación, pero de ningún kit que ${owner} hiciera para esta bóveda: quizá de otra bóveda. Comprueba que escribiste el código del kit de esta bóveda, o pregunta a ${owner}.`,
      notRegisteredTitle: 'Aún no hay nada que comprobar',
      notRegistered: (owner) =>
        `${owner} aún no ha registrado un código de comprobación para tu kit (los kits hechos antes de los códigos no lo tienen), así que no se registró nada. Pregunta a ${owner} si esperabas uno.`,
      tooMany: (limit, seconds) =>
        `Se comprobaron demasiados códigos con este enlace (${f.number(limit)} en un minuto), así que este no. Espera ${f.duration(seconds)} y vuelve a intentarlo.`,
    },
  }
}

/**
 * The page language for an Accept-Language header: Spanish when the first language it ranks (by q, then
 * order) among those the pages have is Spanish, else English. The tag itself (es-MX) picks the date style.
 */
export function pageLocale(acceptLanguage: string | undefined): { lang: PageLanguage; locale: string } {
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';')
      const q = params.map((p) => /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p)?.[1]).find((v) => v !== undefined)
      return {
        tag: tag.trim(),
        primary: tag.trim().toLowerCase().split('-')[0],
        q: q === undefined ? 1 : Number(q),
        index,
      }
    })
    .filter((entry) => entry.q > 0 && (entry.primary === 'es' || entry.primary === 'en'))
    .sort((a, b) => b.q - a.q || a.index - b.index)
  const best = ranked[0]
  return best?.primary === 'es' ? { lang: 'es', locale: best.tag } : { lang: 'en', locale: best?.tag ?? 'en' }
}

/** The catalogue and the formatter for a request's Accept-Language. */
export function pageText(acceptLanguage: string | undefined): { text: PageText; format: LocaleFormat } {
  const { lang, locale } = pageLocale(acceptLanguage)
  const format = localeFormat(locale)
  return { text: lang === 'es' ? spanish(format) : english(format), format }
}
