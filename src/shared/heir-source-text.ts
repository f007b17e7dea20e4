// What an heir is told when the encrypted files cannot be read from a Vault Service (with the heir
// access code) or from an Arweave gateway, in English and Spanish. One table for the command-line
// recovery and the app (src/recovery, English) and the heir's recovery page (src/recovery-page, either
// language), so the same event gets the same words everywhere. Each says what happened and what to do.

export type HeirLanguage = 'en' | 'es'

/** Where a service read stopped: the phrase ends "could not be reached …" and "had a problem …". */
export type ServiceStep =
  | { step: 'open' }
  | { step: 'list' }
  | { step: 'download'; name: string; cutOff?: boolean }

/** Where a gateway read stopped. */
export type GatewayStep =
  | { step: 'search' }
  | { step: 'search-read' }
  | { step: 'download'; txId: string; cutOff?: boolean }

/** Something a gateway answered that no honest gateway sends. */
export type GatewayOddity =
  | { kind: 'big-page'; mb: number }
  | { kind: 'no-list' }
  | { kind: 'bad-id'; shown: string }
  | { kind: 'no-owner'; txId: string }
  | { kind: 'bad-size'; txId: string }
  | { kind: 'same-page' }
  | { kind: 'redirect'; txId: string; to: string }
  | { kind: 'redirects'; txId: string }

/** Why an address was refused (shared/service-address.ts). */
export type AddressProblem = 'not-an-address' | 'not-http' | 'plain-http-remote' | 'credentials'

export interface HeirSourceText {
  accessRefused: string
  otherVault(vaultId?: string): string
  vaultUnknown: string
  notReleased(vaultId: string, state: string): string
  unreachable(serviceUrl: string, at: ServiceStep): string
  serviceProblem(at: ServiceStep, status: number): string
  /** The service answered with a redirect (never followed: the access code would go along). */
  redirected(serviceUrl: string, location: string | null): string
  badAnswer(serviceUrl: string, operation: string, problem: string): string
  tooLong(serviceUrl: string, listed: number): string
  fileGone(name: string): string
  address(problem: AddressProblem, input: string): string
  gatewayAddress(gateway: string): string
  ownerAddress(owner: string): string
  gatewayUnreachable(origin: string, at: GatewayStep, cause: string): string
  /** The recovery page was opened at a service's address, whose policy lets it reach that service only. */
  gatewayFromServedPage(origin: string): string
  gatewayUntrustworthy(origin: string, oddity: GatewayOddity): string
  gatewaySearchFailed(origin: string, status: number, detail: string | undefined): string
  gatewayTooManyPages(origin: string, maxPages: number): string
  gatewayStalled(origin: string, txId: string, seconds: number): string
  gatewayNotServed(origin: string, txId: string, status: number): string
  gatewayTooLong(origin: string, txId: string, size: number): string
  gatewayMismatch(txId: string): string
}

const EN: HeirSourceText = {
  accessRefused:
    'The vault service did not accept this access code. It may be mistyped (copy it again from the e-mail, including the "hk_" at its start), or it may have been withdrawn. If it still fails, you can recover from a copy of the encrypted files with the same guardians\' kits.',
  otherVault: (vaultId) =>
    `This access token is for a different vault than ${vaultId ? `vault ${vaultId}` : 'the one asked for'}. The vault id in the e-mail and the one printed on the guardians' kits must be the same: check that the e-mail and the kits belong to the same person's vault.`,
  vaultUnknown:
    "The vault service does not know this vault. Check that the guardians' kits are for the vault named in the e-mail (the vault id is printed on every kit).",
  notReleased: (vaultId, state) =>
    `The vault service says vault ${vaultId} has not been released (its state is "${state}"), yet it let this access code read it. Nothing was downloaded. Check that the e-mail is genuine, and ask the service or the owner's guardians what is going on.`,
  unreachable: (serviceUrl, at) =>
    `The vault service at ${serviceUrl} could not be reached ${enServiceStep(at)}. Check the internet connection and the address in the e-mail, then start the recovery again: files already recovered are kept, and a download that was cut off continues where it stopped.`,
  serviceProblem: (at, status) =>
    `The vault service had a problem ${enServiceStep(at)} (HTTP ${status}). Try again later: files already recovered are kept.`,
  redirected: (serviceUrl, location) =>
    `The vault service at ${serviceUrl} answered with a redirect${location ? ` to ${location}` : ''}, which is not followed (the access code would go along). Use the address exactly as the e-mail gives it; if the service has moved, use its new address.`,
  badAnswer: (serviceUrl, operation, problem) =>
    `The Vault Service at ${serviceUrl} sent a wrong answer (${operation}): ${problem}. Nothing was used from it. If this keeps happening, the address may not be a genuine Vault Service.`,
  tooLong: (serviceUrl, listed) =>
    `The Vault Service at ${serviceUrl} sent more than the ${listed} bytes it listed for this file, so the download was stopped. If this keeps happening, the address may not be a genuine Vault Service.`,
  fileGone: (name) =>
    `The service no longer has "${name}". Nothing was written for it; the other files are not affected.`,
  address: (problem, input) =>
    ({
      'not-an-address': `"${input}" is not a service address. Enter it like https://vault.example.com (or http://127.0.0.1:8787 for a service on this computer).`,
      'not-http': 'The service address must start with https://.',
      credentials:
        'The service address must not contain a user name or password. Remove the part before the @.',
      'plain-http-remote':
        'Use https:// for a remote Vault Service; plain http:// is only allowed for a service on this computer, because the key or access code would cross the network unprotected.',
    })[problem],
  gatewayAddress: (gateway) =>
    `"${gateway}" is not a gateway address. Give one such as https://arweave.net (any Arweave gateway that answers GraphQL queries will do).`,
  ownerAddress: (owner) =>
    `"${owner}" is not an Arweave wallet address (those are exactly 43 letters, digits, '-' and '_'). Give the address of the wallet that stored the vault (the vault service's operator), or leave the owner out.`,
  gatewayUnreachable: (origin, at, cause) =>
    `The Arweave gateway ${origin} could not be reached ${enGatewayStep(at)} (${cause}). Check the internet connection and the address, or try another gateway (https://arweave.net is one), then start the recovery again: files already recovered are kept and finished downloads are not fetched again.`,
  gatewayFromServedPage: (origin) =>
    `This page was opened from a vault service's address, so it may connect to that service only, not to the Arweave gateway ${origin}. Save the page (your browser's "Save page as…"), open the saved copy and choose Arweave there: a saved copy may reach any gateway.`,
  gatewayUntrustworthy: (origin, oddity) =>
    `The Arweave gateway ${origin} answered ${enOddity(oddity)}. It is faulty or not to be trusted, so the recovery stopped before downloading anything it named. Use another gateway (https://arweave.net is one) and start again.`,
  gatewaySearchFailed: (origin, status, detail) =>
    `The Arweave gateway ${origin} did not answer the search for the vault's files (HTTP ${status}${detail ? `: ${detail}` : ''}). Use a gateway that answers GraphQL queries, such as https://arweave.net, and start again.`,
  gatewayTooManyPages: (origin, maxPages) =>
    `The Arweave gateway ${origin} was still listing transactions tagged with this vault after ${maxPages} pages (${maxPages * 100} transactions), so the search stopped. A gateway that pages on for ever is faulty or hostile, and anyone can tag junk with a vault's label: try another gateway, or give --owner <the wallet address that stored the vault> to list only its transactions.`,
  gatewayStalled: (origin, txId, seconds) =>
    `The Arweave gateway ${origin} stopped sending ${txId}: nothing came for ${seconds} s, so the download was stopped. Start the recovery again (it continues where it stopped), or use another gateway.`,
  gatewayNotServed: (origin, txId, status) =>
    `The Arweave gateway ${origin} did not serve ${txId} (HTTP ${status}). Try again later or with another gateway: files already recovered are kept.`,
  gatewayTooLong: (origin, txId, size) =>
    `The gateway ${origin} sent more bytes for ${txId} than the ${size} its transaction holds, so the download was cut and nothing was written for it. Run the recovery again with another gateway.`,
  gatewayMismatch: (txId) =>
    `The gateway served bytes for ${txId} that are not the stored file (wrong size or SHA-256). Nothing was written for it; run the recovery again, or with another gateway.`,
}

function enServiceStep(at: ServiceStep): string {
  if (at.step === 'open') return 'to open the vault'
  if (at.step === 'list') return 'to list the files'
  return `while downloading "${at.name}"${at.cutOff ? ' (the download was cut off)' : ''}`
}

function enGatewayStep(at: GatewayStep): string {
  if (at.step === 'search') return "to look up the vault's files"
  if (at.step === 'search-read') return "while reading the list of the vault's files"
  return at.cutOff ? `while downloading ${at.txId} (the download was cut off)` : `to download ${at.txId}`
}

function enOddity(o: GatewayOddity): string {
  switch (o.kind) {
    case 'big-page':
      return `a page of more than ${o.mb} MB to the search`
    case 'no-list':
      return 'a search result without a list of transactions'
    case 'bad-id':
      return `${o.shown} where a transaction id must be`
    case 'no-owner':
      return `a transaction (${o.txId}) without a valid owner address`
    case 'bad-size':
      return `a transaction (${o.txId}) with an impossible size`
    case 'same-page':
      return 'the same page of its search again'
    case 'redirect':
      return `a redirect of ${o.txId} to ${o.to}, which is not an HTTP(S) address`
    case 'redirects':
      return `more than 5 redirects for ${o.txId}`
  }
}

const ES: HeirSourceText = {
  accessRefused:
    'El servicio de la bóveda no aceptó este código de acceso. Puede estar mal escrito (cópielo de nuevo del correo, incluido el "hk_" del principio) o puede haber sido retirado. Si sigue fallando, puede recuperar desde una copia de los archivos cifrados con los mismos kits de los guardianes.',
  otherVault: (vaultId) =>
    `Este código de acceso es de una bóveda distinta de ${vaultId ? `la bóveda ${vaultId}` : 'la pedida'}. El id de bóveda del correo y el impreso en los kits de los guardianes deben coincidir: compruebe que el correo y los kits son de la bóveda de la misma persona.`,
  vaultUnknown:
    'El servicio no conoce esta bóveda. Compruebe que los kits de los guardianes son de la bóveda que nombra el correo (el id de bóveda está impreso en cada kit).',
  notReleased: (vaultId, state) =>
    `El servicio dice que la bóveda ${vaultId} no ha sido liberada (su estado es "${state}"), y aun así dejó leerla con este código. No se descargó nada. Compruebe que el correo es auténtico y pregunte al servicio o a los guardianes qué ocurre.`,
  unreachable: (serviceUrl, at) =>
    `No se pudo contactar con el servicio de la bóveda en ${serviceUrl} ${esServiceStep(at)}. Compruebe la conexión a internet y la dirección del correo, y empiece de nuevo la recuperación: los archivos ya recuperados se conservan y una descarga cortada sigue donde se quedó.`,
  serviceProblem: (at, status) =>
    `El servicio de la bóveda tuvo un problema ${esServiceStep(at)} (HTTP ${status}). Inténtelo más tarde: los archivos ya recuperados se conservan.`,
  redirected: (serviceUrl, location) =>
    `El servicio de la bóveda en ${serviceUrl} respondió con una redirección${location ? ` a ${location}` : ''}, que no se sigue (el código de acceso iría con ella). Use la dirección exactamente como la da el correo; si el servicio se ha mudado, use su dirección nueva.`,
  badAnswer: (serviceUrl, operation, problem) =>
    `El servicio de la bóveda en ${serviceUrl} envió una respuesta errónea (${operation}): ${problem}. No se usó nada de ella. Si se repite, puede que la dirección no sea un servicio de bóveda auténtico.`,
  tooLong: (serviceUrl, listed) =>
    `El servicio de la bóveda en ${serviceUrl} envió más de los ${listed} bytes que anunció para este archivo, así que la descarga se detuvo. Si se repite, puede que la dirección no sea un servicio de bóveda auténtico.`,
  fileGone: (name) =>
    `El servicio ya no tiene "${name}". No se escribió nada para él; los demás archivos no se ven afectados.`,
  address: (problem, input) =>
    ({
      'not-an-address': `"${input}" no es una dirección de servicio. Escríbala como https://vault.example.com (o http://127.0.0.1:8787 para un servicio en este equipo).`,
      'not-http': 'La dirección del servicio debe empezar por https://.',
      credentials:
        'La dirección del servicio no debe contener un usuario ni una contraseña. Quite la parte anterior a la @.',
      'plain-http-remote':
        'Use https:// para un servicio remoto; http:// sin cifrar solo se permite para un servicio en este equipo, porque el código de acceso cruzaría la red sin protección.',
    })[problem],
  gatewayAddress: (gateway) =>
    `"${gateway}" no es la dirección de una pasarela. Dé una como https://arweave.net (sirve cualquier pasarela de Arweave que responda a consultas GraphQL).`,
  ownerAddress: (owner) =>
    `"${owner}" no es una dirección de monedero de Arweave (tienen exactamente 43 letras, cifras, '-' y '_'). Dé la dirección del monedero que guardó la bóveda (el operador del servicio) o déjela en blanco.`,
  gatewayUnreachable: (origin, at, cause) =>
    `No se pudo contactar con la pasarela de Arweave ${origin} ${esGatewayStep(at)} (${cause}). Compruebe la conexión a internet y la dirección, o pruebe otra pasarela (https://arweave.net es una), y empiece de nuevo la recuperación: los archivos ya recuperados se conservan.`,
  gatewayFromServedPage: (origin) =>
    `Esta página se abrió desde la dirección de un servicio de bóveda, así que solo puede conectarse con ese servicio, no con la pasarela de Arweave ${origin}. Guarde la página ("Guardar página como…" del navegador), abra la copia guardada y elija Arweave allí: una copia guardada puede usar cualquier pasarela.`,
  gatewayUntrustworthy: (origin, oddity) =>
    `La pasarela de Arweave ${origin} respondió ${esOddity(oddity)}. Está averiada o no es de fiar, así que la recuperación se detuvo antes de descargar nada de lo que nombró. Use otra pasarela (https://arweave.net es una) y empiece de nuevo.`,
  gatewaySearchFailed: (origin, status, detail) =>
    `La pasarela de Arweave ${origin} no respondió a la búsqueda de los archivos de la bóveda (HTTP ${status}${detail ? `: ${detail}` : ''}). Use una pasarela que responda a consultas GraphQL, como https://arweave.net, y empiece de nuevo.`,
  gatewayTooManyPages: (origin, maxPages) =>
    `La pasarela de Arweave ${origin} seguía listando transacciones con la etiqueta de esta bóveda tras ${maxPages} páginas (${maxPages * 100} transacciones), así que la búsqueda se detuvo. Una pasarela que no termina de paginar está averiada o es hostil, y cualquiera puede etiquetar basura con la etiqueta de una bóveda: pruebe otra pasarela o dé la dirección del monedero que guardó la bóveda.`,
  gatewayStalled: (origin, txId, seconds) =>
    `La pasarela de Arweave ${origin} dejó de enviar ${txId}: no llegó nada en ${seconds} s, así que la descarga se detuvo. Empiece de nuevo la recuperación o use otra pasarela.`,
  gatewayNotServed: (origin, txId, status) =>
    `La pasarela de Arweave ${origin} no sirvió ${txId} (HTTP ${status}). Inténtelo más tarde o con otra pasarela: los archivos ya recuperados se conservan.`,
  gatewayTooLong: (origin, txId, size) =>
    `La pasarela ${origin} envió más bytes para ${txId} que los ${size} de su transacción, así que la descarga se cortó y no se escribió nada para ella. Repita la recuperación con otra pasarela.`,
  gatewayMismatch: (txId) =>
    `La pasarela sirvió para ${txId} bytes que no son el archivo guardado (tamaño o SHA-256 erróneos). No se escribió nada para él; repita la recuperación, o con otra pasarela.`,
}

function esServiceStep(at: ServiceStep): string {
  if (at.step === 'open') return 'para abrir la bóveda'
  if (at.step === 'list') return 'para listar los archivos'
  return `al descargar "${at.name}"${at.cutOff ? ' (la descarga se cortó)' : ''}`
}

function esGatewayStep(at: GatewayStep): string {
  if (at.step === 'search') return 'para buscar los archivos de la bóveda'
  if (at.step === 'search-read') return 'al leer la lista de archivos de la bóveda'
  return at.cutOff ? `al descargar ${at.txId} (la descarga se cortó)` : `para descargar ${at.txId}`
}

function esOddity(o: GatewayOddity): string {
  switch (o.kind) {
    case 'big-page':
      return `una página de más de ${o.mb} MB a la búsqueda`
    case 'no-list':
      return 'un resultado de búsqueda sin lista de transacciones'
    case 'bad-id':
      return `${o.shown} donde debe ir un id de transacción`
    case 'no-owner':
      return `una transacción (${o.txId}) sin dirección de propietario válida`
    case 'bad-size':
      return `una transacción (${o.txId}) con un tamaño imposible`
    case 'same-page':
      return 'otra vez la misma página de su búsqueda'
    case 'redirect':
      return `una redirección de ${o.txId} a ${o.to}, que no es una dirección HTTP(S)`
    case 'redirects':
      return `más de 5 redirecciones para ${o.txId}`
  }
}

/** The heir's words for reading from a service or a gateway, by language. */
export const HEIR_SOURCE_TEXT: Record<HeirLanguage, HeirSourceText> = { en: EN, es: ES }
