/** One route an express app answers: method (upper case, ANY for a static file tree) and its full path pattern. */
export type AppRoute = { method: string; path: string }

type Layer = {
  name?: string
  rawPath?: string | string[]
  route?: { path: string | string[]; methods: Record<string, boolean> }
  handle?: { stack?: Layer[]; router?: { stack?: Layer[] } }
}

const join = (base: string, path: string) => `${base}/${path}`.replace(/\/{2,}/g, '/').replace(/(.)\/$/, '$1')

/**
 * Every route of an express 5 app, walked from its router stack: routers and sub-apps mounted with use() are
 * entered with their mount path, so a route added anywhere shows up here.
 */
export function listRoutes(app: { router: { stack: Layer[] } }): AppRoute[] {
  const routes: AppRoute[] = []
  const walk = (stack: Layer[], base: string) => {
    for (const layer of stack) {
      if (layer.route) {
        const paths = [layer.route.path].flat()
        for (const method of Object.keys(layer.route.methods).filter((m) => m !== '_all')) {
          for (const path of paths) routes.push({ method: method.toUpperCase(), path: join(base, path) })
        }
        continue
      }
      const paths = [layer.rawPath ?? '/'].flat()
      const nested = layer.handle?.stack ?? layer.handle?.router?.stack
      if (nested) for (const path of paths) walk(nested, join(base, path))
      // A static file tree (bull-board's assets) answers any path below its mount point.
      else if (layer.name === 'serveStatic') {
        for (const path of paths) routes.push({ method: 'ANY', path: join(base, `${path}/*file`) })
      }
    }
  }
  walk(app.router.stack, '')
  return routes
}

/** A concrete path for a pattern: every `:param` and `*wildcard` gets a harmless sample value. */
export function samplePath(pattern: string, value = 'sample-1'): string {
  return pattern.replace(/[{}]/g, '').replace(/:\w+/g, value).replace(/\*\w*/g, value)
}
