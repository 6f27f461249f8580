import { z } from 'zod'
import { PageParams, listResponse, type ListResponse } from './common.js'
import type { CallOptions, HttpClient } from './http.js'
import { listAll, listPages } from './pagination.js'
import { pathSegment, validateParams } from './validate-params.js'

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

const InstitutionList = listResponse(Institution)

/** institutions.list/get, plus listAll and listPages over the catalog. */
export function createInstitutionsResource(http: HttpClient) {
  /** GET /v1/institutions: one page of the catalog, optionally searched by name, id, portal URL or domain. */
  async function list(
    params: InstitutionListParams = {},
    options?: CallOptions,
  ): Promise<ListResponse<Institution>> {
    const query = validateParams(InstitutionListParams, params)
    return http.request({ method: 'GET', path: '/v1/institutions', query, schema: InstitutionList, options })
  }

  return {
    list,
    listAll: (params: InstitutionListParams = {}, options?: CallOptions) => listAll(list, params, options),
    listPages: (params: InstitutionListParams = {}, options?: CallOptions) =>
      listPages(list, params, options),
    /** GET /v1/institutions/{institutionId} */
    async get(institutionId: string, options?: CallOptions): Promise<Institution> {
      const id = pathSegment('institutionId', institutionId)
      return http.request({ method: 'GET', path: `/v1/institutions/${id}`, schema: Institution, options })
    },
  }
}
export type InstitutionsResource = ReturnType<typeof createInstitutionsResource>
