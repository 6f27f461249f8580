export { dashboardRoutes } from './dashboard-routes.js'
export { renderDashboardPage } from './dashboard-page.js'
