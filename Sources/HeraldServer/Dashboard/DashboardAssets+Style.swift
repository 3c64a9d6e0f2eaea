extension DashboardAssets {
    /// `GET /dashboard/style.css`.
    static let style = #"""
:root { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d1f27; background: #f4f5f9; }
body { margin: 0; }
header { display: flex; gap: 1em; align-items: baseline; padding: 0.6em 1.2em; background: #1d2440; color: #fff; }
header h1 { margin: 0; font-size: 1.3em; }
main { padding: 1em 1.2em; display: grid; gap: 1.2em; }
h2 { font-size: 0.95em; margin: 0 0 0.5em; color: #454a5e; }
section { background: #fff; border-radius: 6px; padding: 0.8em 1em; box-shadow: 0 1px 2px rgba(0, 0, 0, 0.08); }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(9.5em, 1fr)); gap: 0.8em; background: none; box-shadow: none; padding: 0; }
.card { background: #fff; border-radius: 6px; padding: 0.7em 0.9em; box-shadow: 0 1px 2px rgba(0, 0, 0, 0.08); }
.card h2 { font-size: 0.8em; text-transform: uppercase; letter-spacing: 0.04em; }
.big { display: block; font-size: 1.9em; font-variant-numeric: tabular-nums; }
small { color: #6b7086; }
.split { display: grid; grid-template-columns: 1fr; gap: 1.2em; background: none; box-shadow: none; padding: 0; }
.split > div { background: #fff; border-radius: 6px; padding: 0.8em 1em; box-shadow: 0 1px 2px rgba(0, 0, 0, 0.08); overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-size: 0.85em; }
th, td { text-align: left; padding: 0.25em 0.6em; border-bottom: 1px solid #e6e8ef; white-space: nowrap; }
td { font-variant-numeric: tabular-nums; max-width: 28em; overflow: hidden; text-overflow: ellipsis; }
canvas { width: 100%; height: 180px; display: block; }
.state { font-size: 0.8em; padding: 0.1em 0.6em; border-radius: 1em; background: #6b7086; }
.state.live { background: #1f8a4c; }
.state.down { background: #b23a3a; }
.muted { color: #8a8fa3; }
header .muted { color: #b8bdd0; font-size: 0.8em; }
.error { color: #ffb4b4; font-size: 0.8em; }
button { font: inherit; font-size: 0.85em; padding: 0.15em 0.7em; border: 1px solid #2a6ad8; color: #2a6ad8; background: #fff; border-radius: 4px; cursor: pointer; }
button:disabled { border-color: #ccc; color: #aaa; cursor: default; }
input { font: inherit; padding: 0.25em 0.5em; }
.subscriber { margin-top: 0.8em; }
.subscriber h3 { font-size: 0.95em; margin: 0 0 0.3em; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.1em 1em; margin: 0; font-size: 0.85em; }
dt { color: #6b7086; }
dd { margin: 0; word-break: break-all; }
.token-form { display: flex; flex-wrap: wrap; gap: 0.4em 1em; align-items: center; margin-top: 0.8em; font-size: 0.85em; color: #6b7086; }
.token-form label { white-space: nowrap; }
.secret { font-size: 0.85em; }
.secret code { user-select: all; word-break: break-all; background: #f4f5f9; padding: 0.1em 0.4em; border-radius: 3px; color: #1d1f27; }
@media (min-width: 2000px) { .split { grid-template-columns: 1fr 1fr; } }
"""#
}
