import { describe, expect, it } from 'vitest'
import { mayBeCut, nameKey, nameLookupKeys, normalizeName } from './normalize-name.js'

describe('normalizeName', () => {
  it('ignores case, punctuation and legal-form suffixes', () => {
    expect(normalizeName('ACME, Ltd.')).toBe('acme')
    expect(normalizeName('Acme Limited')).toBe('acme')
    expect(normalizeName('Acme Holdings Co., Ltd.')).toBe('acme holdings')
    expect(normalizeName('Foo L.L.C.')).toBe('foo')
  })

  it('reads ü, ue and u (and ß as ss) alike, and drops connector words in any language', () => {
    expect(normalizeName('Müller & Söhne GmbH')).toBe('muller sohne')
    expect(normalizeName('MUELLER UND SOEHNE GMBH')).toBe('muller sohne')
    expect(normalizeName('Muller and Sohne')).toBe('muller sohne')
    expect(normalizeName('Großhandel Weiß')).toBe(normalizeName('GROSSHANDEL WEISS'))
    expect(normalizeName('Dupont et Fils')).toBe(normalizeName('Dupont & Fils'))
    expect(normalizeName('Hijos y Cía')).toBe(normalizeName('Hijos'))
    expect(normalizeName('Ørsted A/S')).toBe('orsted')
    expect(normalizeName('Société Générale')).toBe('societe generale')
  })

  it('drops a legal form written before the name', () => {
    expect(normalizeName('SARL Dupont')).toBe('dupont')
    expect(normalizeName('AB Volvo')).toBe('volvo')
    expect(normalizeName('Müller GmbH & Co. KG')).toBe('muller')
  })

  it('keeps a name that is only a legal form', () => {
    expect(normalizeName('Inc')).toBe('inc')
  })

  it('gives an empty name for nothing', () => {
    expect(normalizeName(null)).toBe('')
    expect(normalizeName(' - ')).toBe('')
  })
})

describe('nameKey', () => {
  it('keeps the legal form apart, in one spelling, so legal-form twins differ', () => {
    expect(nameKey('Müller GmbH')).toMatchObject({ base: 'mueller', legalForm: 'gmbh', full: 'mueller gmbh' })
    expect(nameKey('Mueller KG')).toMatchObject({ base: 'mueller', legalForm: 'kg', full: 'mueller kg' })
    expect(nameKey('ACME LIMITED')?.full).toBe(nameKey('Acme Ltd.')?.full)
    expect(nameKey('Acme')?.legalForm).toBeNull()
  })

  it('folds vowels the German way (ü is ue), never Joe into Jo; the stripped spelling is kept beside', () => {
    expect(nameKey('Müller')?.base).toBe(nameKey('MUELLER')?.base)
    expect(nameKey('Müller')?.base).not.toBe(nameKey('Muller')?.base)
    expect(nameKey('Müller')?.stripped?.base).toBe(nameKey('Muller')?.base)
    expect(nameKey('Joe Smith')?.base).toBe('joe smith')
    expect(nameKey('Joe Smith')?.base).not.toBe(nameKey('Jo Smith')?.base)
    expect(nameKey('Boeing')?.base).toBe('boeing')
    expect(nameKey('Großhandel Weiß')?.base).toBe(nameKey('GROSSHANDEL WEISS')?.base)
  })

  it('reads Gesellschaft as a word of the name: only Gesellschaft mbH (or mit beschränkter Haftung) is GmbH', () => {
    expect(nameKey('Müller Gesellschaft')).toMatchObject({ base: 'mueller gesellschaft', legalForm: null })
    expect(nameKey('Müller Gesellschaft')?.base).not.toBe(nameKey('Müller GmbH')?.base)
    expect(nameKey('Müller Gesellschaft mbH')?.full).toBe(nameKey('Müller GmbH')?.full)
    expect(nameKey('Müller Gesellschaft mit beschränkter Haftung')?.full).toBe(nameKey('MUELLER GMBH')?.full)
    expect(nameKey('Siemens Aktiengesellschaft')?.full).toBe(nameKey('Siemens AG')?.full)
  })

  it('transliterates Cyrillic and Greek payer names before comparing them (Greek per ELOT 743)', () => {
    expect(nameKey('ООО «Ромашка»')?.base).toBe(nameKey('OOO Romashka')?.base)
    expect(nameKey('Иван Жуков')?.base).toBe('ivan zhukov')
    expect(nameKey('Щукин')?.base).toBe('shchukin')
    expect(nameKey('ΠΑΠΑΔΟΠΟΥΛΟΣ ΑΕ')?.base).toBe(nameKey('Papadopoulos AE')?.base)
    expect(nameKey('Χατζής')?.base).toBe('chatzis')
    expect(nameKey('Ευαγγελίου')?.base).toBe('evangeliou')
  })

  it('keeps every word as written, in order, in the plain form, for names the bank cut short', () => {
    expect(nameKey('Internationale Maschinenbau Gesellschaft mbH')?.plain).toBe(
      'internationale maschinenbau gesellschaft mbh',
    )
  })
})

describe('mayBeCut', () => {
  it('is true for names exactly 35 or 70 characters long', () => {
    expect(mayBeCut('Internationale Maschinenbau Gesells')).toBe(true)
    expect(mayBeCut('Internationale Maschinenbau')).toBe(false)
    expect(mayBeCut('x'.repeat(70))).toBe(true)
  })
})

describe('nameLookupKeys', () => {
  const long = 'Müller Maschinenbau und Anlagentechnik GmbH'

  it('is the name’s own key for a name no bank cuts', () => {
    expect(nameLookupKeys(['Acme Trading GmbH', 'ACME TRADING', null, ''])).toEqual(['acme trading'])
  })

  it('holds the key of every cut a bank writes: at 35 characters as written and with ü spelled ue', () => {
    const keys = nameLookupKeys([long])
    expect(keys[0]).toBe(normalizeName(long))
    expect(keys).toContain(normalizeName('Müller Maschinenbau und Anlagentech'))
    expect(keys).toContain(normalizeName('MUELLER MASCHINENBAU UND ANLAGENTEC'))
  })

  it('cuts at 70 characters too, and cuts aliases like the name', () => {
    const seventy = 'Nordic Offshore Engineering and Marine Logistics Services Aktiebolag Goteborg'
    const cut = seventy.slice(0, 70)
    expect(nameLookupKeys([seventy])).toEqual([
      normalizeName(seventy),
      normalizeName(seventy.slice(0, 35)),
      normalizeName(cut),
    ])
    expect(nameLookupKeys(['X', long])).toContain(normalizeName('MUELLER MASCHINENBAU UND ANLAGENTEC'))
  })
})
