import type { Institution } from '../api-client/index.js'

type CatalogEntry = {
  id: string
  name: string
  status: Institution['status']
  /** The first is the canonical portal. */
  portals: string[]
  alternativeNames: string[]
  hasLogo: boolean
}

// Fictional banks only: every host is under the reserved .example top-level domain.
const ENTRIES: CatalogEntry[] = [
  {
    id: 'ins_harbor_national',
    name: 'Harbor National Bank',
    status: 'live',
    portals: ['https://business.harbornational.example', 'https://treasury.harbornational.example'],
    alternativeNames: ['Harbor National', 'HNB', 'Harbor Treasury'],
    hasLogo: true,
  },
  {
    id: 'ins_granite_trust',
    name: 'Granite Trust Company',
    status: 'live',
    portals: ['https://online.granitetrust.example'],
    alternativeNames: ['Granite Trust', 'GTC'],
    hasLogo: true,
  },
  {
    id: 'ins_meridian_commerce',
    name: 'Meridian Commerce Bank',
    status: 'live',
    portals: [
      'https://cashpro.meridiancommerce.example',
      'https://smallbiz.meridiancommerce.example',
      'https://meridiancommerce.example/commercial',
    ],
    alternativeNames: ['Meridian', 'MCB', 'Meridian Commercial'],
    hasLogo: true,
  },
  {
    id: 'ins_bluewater_federal',
    name: 'Bluewater Federal Savings',
    status: 'live',
    portals: ['https://bluewaterfederal.example/business'],
    alternativeNames: ['Bluewater', 'Bluewater FSB'],
    hasLogo: false,
  },
  {
    id: 'ins_cedar_valley',
    name: 'Cedar Valley Bank & Trust',
    status: 'live',
    portals: ['https://ebanking.cedarvalley.example', 'https://commercial.cedarvalley.example'],
    alternativeNames: ['Cedar Valley', 'CVBT', 'Cedar Valley Bank and Trust'],
    hasLogo: true,
  },
  {
    id: 'ins_northgate_capital',
    name: 'Northgate Capital Bank',
    status: 'live',
    portals: ['https://connect.northgatecapital.example'],
    alternativeNames: ['Northgate', 'NCB'],
    hasLogo: false,
  },
  {
    id: 'ins_summit_pacific',
    name: 'Summit Pacific Bank',
    status: 'live',
    portals: ['https://business.summitpacific.example', 'https://wires.summitpacific.example'],
    alternativeNames: ['Summit Pacific', 'SPB'],
    hasLogo: true,
  },
  {
    id: 'ins_ironbridge',
    name: 'Ironbridge Commercial Bank',
    status: 'live',
    portals: ['https://portal.ironbridgebank.example'],
    alternativeNames: ['Ironbridge', 'Iron Bridge Bank'],
    hasLogo: true,
  },
  {
    id: 'ins_lakeshore_community',
    name: 'Lakeshore Community Bank',
    status: 'live',
    portals: ['https://online.lakeshorecb.example'],
    alternativeNames: ['Lakeshore', 'LCB'],
    hasLogo: false,
  },
  {
    id: 'ins_redwood_merchants',
    name: 'Redwood Merchants Bank',
    status: 'live',
    portals: ['https://merchants.redwoodbank.example', 'https://treasury.redwoodbank.example'],
    alternativeNames: ['Redwood', 'Redwood Merchants'],
    hasLogo: true,
  },
  {
    id: 'ins_thames_city',
    name: 'Thames City Bank',
    status: 'live',
    portals: ['https://business.thamescity.example'],
    alternativeNames: ['Thames City', 'TCB London'],
    hasLogo: true,
  },
  {
    id: 'ins_rhine_handelsbank',
    name: 'Rhine Handelsbank',
    status: 'live',
    portals: ['https://firmenkunden.rhinehandelsbank.example', 'https://ebanking.rhinehandelsbank.example'],
    alternativeNames: ['Rhine Bank', 'RHB', 'Rhein Handelsbank'],
    hasLogo: false,
  },
  {
    id: 'ins_prairie_state',
    name: 'Prairie State Bank',
    status: 'live',
    portals: ['https://online.prairiestate.example'],
    alternativeNames: ['Prairie State', 'PSB'],
    hasLogo: false,
  },
  {
    id: 'ins_coastal_first',
    name: 'Coastal First Bank',
    status: 'live',
    portals: ['https://treasury.coastalfirst.example'],
    alternativeNames: ['Coastal First', 'CFB'],
    hasLogo: true,
  },
  {
    id: 'ins_silverline',
    name: 'Silverline Business Bank',
    status: 'live',
    portals: ['https://app.silverline.example', 'https://silverline.example/login'],
    alternativeNames: ['Silverline', 'Silverline Bank'],
    hasLogo: true,
  },
  {
    id: 'ins_oakmont_savings',
    name: 'Oakmont Savings Bank',
    status: 'pending',
    portals: ['https://business.oakmontsavings.example'],
    alternativeNames: ['Oakmont', 'OSB'],
    hasLogo: false,
  },
  {
    id: 'ins_keystone_mercantile',
    name: 'Keystone Mercantile Bank',
    status: 'pending',
    portals: ['https://commercial.keystonemercantile.example', 'https://cash.keystonemercantile.example'],
    alternativeNames: ['Keystone', 'KMB', 'Keystone Mercantile'],
    hasLogo: true,
  },
  {
    id: 'ins_aurora_trade',
    name: 'Aurora Trade Bank',
    status: 'pending',
    portals: ['https://online.auroratrade.example'],
    alternativeNames: ['Aurora', 'Aurora Trade'],
    hasLogo: false,
  },
  {
    id: 'ins_pinecrest',
    name: 'Pinecrest Bank',
    status: 'live',
    portals: ['https://business.pinecrestbank.example'],
    alternativeNames: ['Pinecrest', 'Pine Crest Bank'],
    hasLogo: false,
  },
  {
    id: 'ins_highland_commerce',
    name: 'Highland Commerce Bank',
    status: 'pending',
    portals: ['https://treasury.highlandcommerce.example'],
    alternativeNames: ['Highland', 'HCB'],
    hasLogo: true,
  },
  {
    id: 'ins_dockside_credit',
    name: 'Dockside Credit Union',
    status: 'live',
    portals: ['https://biz.docksidecu.example'],
    alternativeNames: ['Dockside', 'Dockside CU'],
    hasLogo: false,
  },
  {
    id: 'ins_emerald_isle',
    name: 'Emerald Isle Bank',
    status: 'live',
    portals: ['https://business.emeraldisle.example', 'https://emeraldisle.example/corporate'],
    alternativeNames: ['Emerald Isle', 'EIB'],
    hasLogo: true,
  },
]

const SETUP_GUIDES = 'https://docs.sandbox.bankrec.example/setup'
const LOGOS = 'https://assets.sandbox.bankrec.example/logos'

/** The sandbox's public catalog of fictional commercial banks, ordered by name. */
export function buildInstitutionCatalog(): Institution[] {
  return ENTRIES.map((entry) => {
    const slug = entry.id.replace(/^ins_/, '').replaceAll('_', '-')
    return {
      institutionId: entry.id,
      name: entry.name,
      canonicalPortalUrl: entry.portals[0]!,
      additionalPortalUrls: entry.portals.slice(1),
      setupGuideUrl: `${SETUP_GUIDES}/${slug}`,
      status: entry.status,
      alternativeNames: entry.alternativeNames,
      logoUrl: entry.hasLogo ? `${LOGOS}/${slug}.svg` : null,
    }
  }).sort((a, b) => a.name.localeCompare(b.name))
}
