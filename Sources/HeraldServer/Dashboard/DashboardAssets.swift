/// The dashboard's files, embedded as string literals so that the binary serves them with no
/// resource bundle, build step or network (a statically linked release build works offline).
/// Edit them here; each is in a file of its own (`DashboardAssets+HTML.swift`, `+Script`, `+Style`).
enum DashboardAssets {
    /// `/dashboard/favicon.svg` (and `/favicon.ico`): the page's icon, so the browser asks for nothing that fails.
    static let favicon = #"""
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1d2440"/><path d="M8 22V10l8 6 8-6v12" fill="none" stroke="#7fb0ff" stroke-width="3" stroke-linejoin="round"/></svg>
"""#
}
