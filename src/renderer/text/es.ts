// Spanish, for the people most likely not to read English: heirs on the Recovery screen (all of
// its section, checked by test/ui/catalogue.test.ts), and the messages it shows from shared parts.
// Sections not listed here stay in English.
import type { LocaleFormat } from '../../shared/locale-format'
import { isolateName } from '../../shared/untrusted-text'
import type { Translation } from './catalogue'
import type { Catalogue } from './en'

export const spanish = (f: LocaleFormat): Translation<Catalogue> => ({
  // All three, so that the sidebar reads in one language and "Ajustes" in a message finds its screen.
  screens: {
    vaults: 'Bóvedas',
    recovery: 'Recuperación',
    settings: 'Ajustes',
  },
  common: {
    files: (n: number) => f.count(n, { one: 'archivo', other: 'archivos' }),
  },
  // Only the pointer an heir follows from the first screen to Recovery.
  firstRun: {
    heirPointer: '¿Alguien le ha dejado sus archivos? No necesita configurar nada aquí.',
    goToRecovery: 'Ir a Recuperación',
    heirPointerEnd: 'y siga los pasos con el correo electrónico que recibió y los kits de los guardianes.',
  },
  errors: {
    creditsNeeded: (n: number) => `Se necesitan: ${f.credits(n, { one: 'crédito', other: 'créditos' })}.`,
    creditsBalance: (n: number) => `Saldo: ${f.credits(n, { one: 'crédito', other: 'créditos' })}.`,
    tryAgainIn: (seconds: number) => `Podrá volver a intentarlo dentro de ${f.duration(seconds)}.`,
    tryAgainNow: 'Ya puede volver a intentarlo.',
    retryIn: (seconds: number) => `Reintentar dentro de ${f.duration(seconds)}`,
    retry: 'Reintentar',
    reconnect: 'Volver a conectar en Ajustes',
    saveOwnerKit: 'Guardar el kit del propietario…',
    connections: 'Conexiones en Ajustes',
    technicalDetails: 'Detalles técnicos',
    screenFailed: 'Esta pantalla ha tenido un problema',
    screenFailedDetail: 'No se ha cambiado nada de su bóveda. La aplicación informó:',
    screenFailedAdvice: 'Vuelva a intentarlo; si ocurre siempre, reinicie Vault Desktop.',
  },
  qrImage: {
    notAnImage: (name: string) =>
      `${isolateName(name)} no es una imagen que esta aplicación pueda leer. Use una foto o un escaneo en PNG o JPEG del código QR del kit.`,
    noCanvas: 'Esta ventana no puede leer imágenes (no hay canvas). Escriba las palabras del kit.',
    noCode: (name: string) =>
      `No se encontró ningún código QR en ${isolateName(name)}. Haga la foto de frente, con todo el código a la vista y enfocado, o escriba las palabras.`,
  },
  recovery: {
    title: 'Recuperación',
    lead: 'Si alguien le nombró heredero o heredera, aquí puede abrir sus archivos. Necesita el correo electrónico que recibió y los kits de suficientes guardianes. Nada de esto es urgente y nada de lo que haga aquí puede dañar los archivos: tómese su tiempo y, si le ayuda, pida a alguien que le acompañe.',
    sourceLegend: '¿Dónde están los archivos?',
    sourceService: 'Recibí un correo electrónico con un código de acceso',
    sourceServiceNote: 'Los archivos se descargan del servicio de bóvedas que indica el correo.',
    sourceFiles: 'Tengo los archivos cifrados en este ordenador',
    sourceFilesNote: 'Archivos cuyo nombre termina en .vault, de una copia de seguridad o una descarga.',
    emailStep: '1. Copie tres datos del correo electrónico',
    emailStepNote:
      'El asunto del correo empieza por «You have been given access». Copie cada dato tal cual; los espacios al principio o al final no importan.',
    serviceAddress: 'Dirección del servicio de bóvedas (Vault Service)',
    serviceAddressPlaceholder: 'https://…',
    accessToken: 'Su código de acceso personal (empieza por hk_)',
    accessTokenPlaceholder: 'hk_…',
    vaultId: 'Identificador de la bóveda (se rellena solo al introducir el kit de un guardián)',
    looking: 'Buscando…',
    showFiles: 'Ver los archivos',
    showFilesNote: 'Opcional: vea lo que contiene la bóveda antes de empezar.',
    vaultHolds: (files: number, size: string) =>
      `La bóveda contiene ${f.count(files, { one: 'archivo', other: 'archivos' })} (${size} en total)`,
    lockedNote: 'Están bloqueados hasta que se introduzcan abajo los kits de suficientes guardianes.',
    filesStep: '1. Elija los archivos cifrados',
    inputs: 'Archivos o carpetas cifrados (una ruta completa por línea)',
    chooseFiles: 'Elegir archivos…',
    kitsStep: '2. Introduzca los kits de los guardianes',
    kitsStepNote:
      'Cada guardián recibió un kit impreso con una lista de palabras y un código de barras cuadrado. Escriba o pegue las palabras (las mayúsculas y los espacios de más no importan), o elija una foto del código. Los kits se quedan en este ordenador; no se envía nada a ninguna parte.',
    noKits: 'Todavía no se ha introducido ningún kit.',
    kitsEntered: (n: number) =>
      `${f.count(n, { one: 'kit', other: 'kits' })} ${f.plural(n, { one: 'introducido', other: 'introducidos' })}.`,
    kitsEnough: (n: number, threshold: number, total: number) =>
      `${f.count(n, { one: 'kit', other: 'kits' })} ${f.plural(n, { one: 'introducido', other: 'introducidos' })}: suficientes para abrir los archivos (se necesitan ${f.number(threshold)} de ${f.number(total)}).`,
    kitsShort: (n: number, threshold: number, total: number) => {
      const more = threshold - n
      return `${f.count(n, { one: 'kit', other: 'kits' })} ${f.plural(n, { one: 'introducido', other: 'introducidos' })}: se necesitan ${f.number(threshold)} de ${f.number(total)}. Pida su kit a ${more === 1 ? 'un guardián más' : `${f.number(more)} guardianes más`}.`
    },
    mixedSetsEnough:
      'Algunos kits son de otro juego (en algún momento el propietario hizo kits nuevos). Se dejarán fuera: abren los archivos los kits del juego del que tiene suficientes.',
    mixedSetsShort:
      'Estos kits son de juegos distintos. En algún momento el propietario hizo kits nuevos (por ejemplo, al cambiar de guardianes), y los kits viejos y los nuevos no encajan entre sí. Pida a los guardianes su kit más reciente: el juego está impreso en cada kit, y todos los kits que se usen juntos deben mostrar el mismo juego.',
    kit: (n: number) => `Kit ${f.number(n)}`,
    kitPlaceholder: 'Las palabras del kit, en orden',
    readPhoto: 'Leer el código de una foto…',
    remove: 'Quitar',
    kitRead: (index: number, of: number, vault: string, set: string) =>
      `Kit ${f.number(index)} de ${f.number(of)}, leído correctamente (bóveda ${isolateName(vault)}, juego ${isolateName(set)}, tal como aparece impreso en el kit).`,
    kitNotRead: 'No se pudo leer este kit.',
    addKit: 'Añadir otro kit',
    saveStep: '3. Elija dónde guardar los archivos',
    output: 'Carpeta para los archivos recuperados',
    outputPlaceholder: 'Por ejemplo /home/usted/Documentos/Archivos recuperados',
    chooseFolder: 'Elegir…',
    outputNote:
      'Si hace falta, se crea una carpeta nueva. Los archivos que ya estén allí nunca se sustituyen. Si la recuperación se interrumpe, vuelva a empezarla con la misma carpeta: seguirá donde se quedó.',
    recovering: 'Recuperando…',
    continue: 'Seguir donde se quedó',
    recoverFromService: 'Recuperar los archivos',
    recoverFiles: 'Comprobar y descifrar',
    missingService: 'Rellene la dirección del servicio y el código de acceso del correo (paso 1).',
    missingFiles: 'Indique dónde están los archivos cifrados (paso 1).',
    missingKits: 'Primero introduzca los kits de suficientes guardianes (paso 2).',
    missingOutput: 'Indique dónde guardar los archivos (paso 3).',
    progress: 'Progreso de la recuperación',
    progressFile: (n: number, total: number) => `Archivo ${f.number(n)} de ${f.number(total)}`,
    practicePassed: 'Ensayo superado: los kits de ensayo abrieron el archivo de ensayo.',
    practiceNotConfirmed: 'El servicio no ha confirmado el ensayo.',
    practiceNote: 'Esto ha sido un ensayo: no se ha entregado nada y no se usaron los kits reales.',
    practiceMode:
      'Estos son kits de ensayo: esto es un ensayo. Solo se recupera el archivo de ensayo; la bóveda sigue cerrada. No introduzca el kit real de ningún guardián.',
    kitReadPractice: (index: number, of: number, until: string) =>
      `Kit de ensayo ${f.number(index)} de ${f.number(of)}, leído correctamente (válido hasta el ${f.date(until)}).`,
    recoverPractice: 'Recuperar el archivo de ensayo',
    practiceFiles: 'Este código de acceso de ensayo abre un archivo de ensayo:',
    kitsSetAside: (n: number) =>
      n === 1
        ? 'Los demás kits bastaban, así que se dejó fuera un kit:'
        : 'Los demás kits bastaban, así que se dejaron fuera algunos kits:',
    stopped: 'La recuperación se detuvo antes de terminar.',
    allRecovered: (n: number) =>
      n === 1
        ? 'El archivo se ha recuperado y comprobado.'
        : `Los ${f.count(n, { one: 'archivo', other: 'archivos' })} se han recuperado y comprobado.`,
    someRecovered: (done: number, total: number) =>
      `${f.plural(done, { one: 'Se ha', other: 'Se han' })} recuperado ${f.number(done)} de ${f.count(total, { one: 'archivo', other: 'archivos' })}.`,
    someRecoveredSoFar: (done: number, total: number) =>
      `Por ahora ${f.plural(done, { one: 'se ha', other: 'se han' })} recuperado ${f.number(done)} de ${f.count(total, { one: 'archivo', other: 'archivos' })}.`,
    savedIn: (folder: string) => `Están en ${isolateName(folder)}.`,
    finishedAt: (at: number) => `Terminada el ${f.dateTime(at)}.`,
    openNote:
      'Se abren como cualquier otro archivo. Guarde los kits de los guardianes hasta estar seguro de que lo tiene todo.',
    fileStatus: {
      recovered: 'recuperado y comprobado',
      kept: 'ya se recuperó antes; se deja como está',
      superseded: 'una copia anterior, se deja fuera',
      failed: 'no recuperado',
      'not-reached': 'todavía no recuperado',
    },
  },
  // What a vault says when the key it was made with is gone from this computer.
  vaultKey: {
    lost: 'La clave de esta bóveda ya no está en este ordenador: importe el kit del propietario.',
    lostFrom: {
      memory:
        'Solo se guardaba mientras la aplicación estaba abierta, porque este ordenador no ofrece llavero, así que desapareció al cerrarla.',
      keychain:
        'Se guardaba en el llavero de este ordenador, que ya no la devuelve (bloqueado, inaccesible o con la entrada borrada). Si el llavero vuelve, reinicie la aplicación.',
      'encrypted-file':
        'Se guardaba en un archivo cifrado con el almacenamiento protegido de este ordenador, que ya no puede abrirlo.',
    },
    lostFingerprint: (fingerprint: string) =>
      `El kit del propietario de esta clave muestra la huella ${fingerprint}. La aplicación no crea otra clave en su lugar: los archivos y los kits de los guardianes de la bóveda solo se abren con esta.`,
  },
  // Where a file's name comes from, and the per-vault choice of telling the service real names.
  assets: {
    nameSealed: 'Nombre guardado dentro del archivo',
    sealedNote:
      'Los archivos con el nombre guardado dentro se subieron desde otro ordenador sin mostrar sus nombres al servicio. Sus nombres salen del manifiesto de la bóveda y de los propios archivos una vez descargados (Recuperación).',
    realNames: 'Decir al servicio los nombres reales de los archivos que se suban a esta bóveda',
    realNamesOff:
      'Desactivado (recomendado): los archivos nuevos llegan al servicio como file-….vault, sin carpeta, tipo ni fecha. Sus nombres reales viajan solo dentro de los archivos cifrados; este ordenador los muestra desde su propia lista de subidas y en otros aparecen al descargar los archivos.',
    realNamesOn:
      'Activado: el servicio conoce el nombre, la ruta de carpetas, el tipo y la fecha de modificación de cada archivo que se suba a esta bóveda a partir de ahora (nunca su contenido). Los archivos ya subidos conservan el nombre con que se enviaron.',
  },
})
