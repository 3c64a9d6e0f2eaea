extension DashboardAssets {
    /// `GET /dashboard`. Each live counter carries `data-metric` (a name `/metrics` serves) and, where the
    /// metric has labels, `data-labels` (`a="x",b="y"`, sorted by name); derived values carry `data-sum`
    /// (a metric summed over its labels) or `data-rate` (per second, from consecutive snapshots).
    static let html = #"""
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Herald dashboard</title>
<link rel="icon" href="/dashboard/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/dashboard/style.css">
<script src="/dashboard/app.js" defer></script>
</head>
<body>
<header>
  <h1>Herald</h1>
  <span id="stream-state" class="state">connecting…</span>
  <span id="updated" class="muted"></span>
  <span id="error" class="error"></span>
</header>
<main>
  <section class="cards">
    <div class="card"><h2>Publishes</h2><span class="big" data-metric="herald_publishes_total" data-labels='result="accepted"'>–</span><small><span data-rate="publishes">0</span>/s</small></div>
    <div class="card"><h2>Deliveries</h2><span class="big" data-sum="herald_deliveries_total">–</span><small><span data-rate="deliveries">0</span>/s</small></div>
    <div class="card"><h2>Backlog: publishes</h2><span class="big" data-metric="herald_backlog" data-labels='kind="jobs"'>–</span></div>
    <div class="card"><h2>Backlog: queued deliveries</h2><span class="big" data-metric="herald_backlog" data-labels='kind="retries"'>–</span></div>
    <div class="card"><h2>Retries due</h2><span class="big" data-metric="herald_retries_due">–</span></div>
    <div class="card"><h2>In flight</h2><span class="big" data-sum="herald_deliveries_in_flight">–</span></div>
    <div class="card"><h2>Dead letters</h2><span class="big" data-sum="herald_dead_letters_total">–</span><small>since start</small></div>
    <div class="card"><h2>SSE listeners</h2><span class="big" data-metric="herald_sse_listeners">–</span></div>
    <div class="card"><h2>UnifiedPush pushes</h2><span class="big" data-sum="herald_unifiedpush_requests_total" data-where='{"kind":"push","result":"accepted"}'>–</span><small><span data-sum="herald_unifiedpush_requests_total" data-where='{"kind":"push","result":"refused"}'>–</span> refused</small></div>
  </section>
  <section>
    <h2>Deliveries per second (up to the last 10 minutes)</h2>
    <canvas id="rate-chart" width="900" height="180"></canvas>
  </section>
  <section>
    <h2>Providers</h2>
    <table id="providers"><thead></thead><tbody></tbody></table>
  </section>
  <section>
    <h2>Front-ends: raw sends</h2>
    <table id="front-ends"><thead><tr><th>front-end</th><th>queued</th><th>refused</th></tr></thead><tbody></tbody></table>
  </section>
  <section class="split">
    <div>
      <h2>Latest feedback</h2>
      <table id="feedback">
        <thead><tr><th>time</th><th>provider</th><th>token</th><th>reason</th><th>action</th><th>origin</th></tr></thead>
        <tbody></tbody>
      </table>
      <p id="feedback-empty" class="muted">Nothing reported in the last hour.</p>
    </div>
    <div>
      <h2>Dead letters <button type="button" id="replay-all" disabled>Replay all</button> <span id="dead-letter-status" class="muted"></span></h2>
      <table id="dead-letters">
        <thead><tr><th>time</th><th>provider</th><th>event</th><th>token</th><th>reason</th><th>attempts</th><th></th></tr></thead>
        <tbody></tbody>
      </table>
      <p id="dead-letters-empty" class="muted">No dead letters.</p>
    </div>
  </section>
  <section>
    <h2>Find a subscriber</h2>
    <form id="search"><input name="q" placeholder="subscriber id or token" size="60" autocomplete="off"> <button type="submit">Search</button></form>
    <div id="search-results"></div>
  </section>
  <section>
    <h2>Tokens <span id="token-status" class="muted"></span></h2>
    <table id="tokens">
      <thead><tr><th>name</th><th>realms</th><th>providers</th><th>events</th><th>created</th><th>expires</th><th>last used</th><th></th></tr></thead>
      <tbody></tbody>
    </table>
    <p id="tokens-empty" class="muted" hidden>No tokens.</p>
    <form id="token-form" class="token-form">
      <label>name <input name="name" required size="16" autocomplete="off"></label>
      <span>realms
        <label><input type="checkbox" name="realm" value="register"> register</label>
        <label><input type="checkbox" name="realm" value="publish"> publish</label>
        <label><input type="checkbox" name="realm" value="listen"> listen</label>
        <label><input type="checkbox" name="realm" value="admin"> admin</label>
      </span>
      <label>providers <input name="providers" placeholder="comma-separated, empty: all" size="24" autocomplete="off"></label>
      <label>events <input name="events" placeholder="globs like chat.*, empty: all" size="24" autocomplete="off"></label>
      <label>expires in <input name="expires" placeholder="90d, empty: never" size="12" autocomplete="off"></label>
      <button type="submit">Create</button>
    </form>
    <p id="token-created" class="secret" hidden>The new token, shown this once (copy it now): <code id="token-secret"></code></p>
  </section>
</main>
</body>
</html>
"""#
}
