import { z } from 'zod'
import { PageParams } from './common.js'

export const InstitutionStatus = z.enum(['live', 'pending'])

export const Institution = z.looseObject({
  institutionId: z.string(),
  name: z.string(),
  canonicalPortalUrl: z.string(),
  additionalPortalUrls: z.array(z.string()),
  setupGuideUrl: z.string(),
  status: InstitutionStatus,
  alternativeNames: z.array(z.string()),
  logoUrl: z.string().nullable(),
})
export type Institution = z.infer<typeof Institution>

export const InstitutionListParams = PageParams.extend({
  query: z.string().max(200).optional(),
})
export type InstitutionListParams = z.input<typeof InstitutionListParams>
