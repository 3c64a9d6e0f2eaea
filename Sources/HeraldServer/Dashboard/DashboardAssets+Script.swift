extension DashboardAssets {
    /// `GET /dashboard/app.js`: the page's behaviour (plain JavaScript, no library).
    static let script = #"""
// Herald's dashboard: live counters from /dashboard/stream, the delivery rate chart, the latest
// feedback, the dead letters with replay, the subscriber search and the API tokens. No library,
// no build step.
'use strict';
(() => {
  const chartSeconds = 600;
  const values = new Map();   // "name|labels" -> value
  const sums = new Map();     // name -> sum over its labels
  const history = [];         // {time, deliveries, publishes}: per-second rates for the chart
  let previous = null;        // {time, deliveries, publishes} of the last snapshot
  let outcomes = [];
  let providers = [];
  let origins = [];           // the front-ends that made raw sends (herald_raw_sends_total's origins)

  const byId = (id) => document.getElementById(id);
  const make = (tag, attributes = {}, text) => {
    const element = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
    if (text !== undefined) element.textContent = text;
    return element;
  };
  const number = (value) => (value === null || value === undefined ? '–' : String(value));
  const rate = (value) => (value >= 10 ? value.toFixed(0) : value.toFixed(1));
  const time = (seconds) => new Date(seconds * 1000).toLocaleTimeString();
  const labelText = (labels) =>
    Object.keys(labels).sort().map((name) => `${name}="${labels[name].replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',');

  async function getJSON(url, options) {
    // From the origin, not relative to the page: a page opened as http://user:password@host/dashboard
    // would resolve relative URLs with the credentials in them, which fetch refuses. The browser
    // still sends the credentials it was given for the page (its authentication cache).
    const response = await fetch(location.origin + url, Object.assign({ credentials: 'same-origin', cache: 'no-store' }, options));
    if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
    return response.json();
  }

  // Like getJSON, but answers {ok, status, body} rather than throwing on an error status, so the
  // server's `error` text can be shown; body is null when the answer has none (204) or is not JSON.
  async function sendJSON(url, options) {
    const response = await fetch(location.origin + url, Object.assign({ credentials: 'same-origin', cache: 'no-store' }, options));
    const text = await response.text();
    let body = null;
    try { body = text ? JSON.parse(text) : null; } catch (error) { body = null; }
    return { ok: response.ok, status: response.status, body };
  }
  const failure = (result) => (result.body && typeof result.body.error === 'string' ? result.body.error : `HTTP ${result.status}`);

  // --- the live counters -------------------------------------------------------------------

  function applySnapshot(snapshot) {
    values.clear();
    sums.clear();
    const seenOutcomes = new Set(outcomes);
    const seenProviders = new Set(providers);
    const seenOrigins = new Set(origins);
    for (const sample of snapshot.samples) {
      values.set(`${sample.name}|${sample.key}`, sample.value);
      sums.set(sample.name, (sums.get(sample.name) || 0) + (sample.value || 0));
      if (sample.name === 'herald_deliveries_total') {
        seenOutcomes.add(sample.labels.outcome);
        seenProviders.add(sample.labels.provider);
      }
      if (sample.name === 'herald_raw_sends_total') seenOrigins.add(sample.labels.origin);
    }
    if (seenOutcomes.size !== outcomes.length || seenProviders.size !== providers.length) {
      outcomes = [...seenOutcomes].sort();
      providers = [...seenProviders].sort();
      buildProviderTable();
    }
    if (seenOrigins.size !== origins.length) {
      origins = [...seenOrigins].sort();
      buildFrontEndTable();
    }
    for (const element of document.querySelectorAll('[data-metric]')) {
      const key = `${element.dataset.metric}|${element.dataset.labels || ''}`;
      element.textContent = values.has(key) ? number(values.get(key)) : '–';
    }
    for (const element of document.querySelectorAll('[data-sum]')) {
      if (element.dataset.where === undefined) {
        element.textContent = number(sums.get(element.dataset.sum) || 0);
        continue;
      }
      // The sum over the samples that carry these labels, whatever their others (a refusal's code).
      const where = Object.entries(JSON.parse(element.dataset.where));
      const total = snapshot.samples
        .filter((sample) => sample.name === element.dataset.sum && where.every(([name, value]) => sample.labels[name] === value))
        .reduce((sum, sample) => sum + (sample.value || 0), 0);
      element.textContent = number(total);
    }
    const now = { time: snapshot.time, deliveries: sums.get('herald_deliveries_total') || 0,
      publishes: values.get('herald_publishes_total|result="accepted"') || 0 };
    if (previous && now.time > previous.time) {
      const seconds = (now.time - previous.time) / 1000;
      const point = { time: now.time, deliveries: Math.max(0, now.deliveries - previous.deliveries) / seconds,
        publishes: Math.max(0, now.publishes - previous.publishes) / seconds };
      history.push(point);
      while (history.length && history[0].time < now.time - chartSeconds * 1000) history.shift();
      for (const element of document.querySelectorAll('[data-rate]')) {
        element.textContent = rate(point[element.dataset.rate] || 0);
      }
    }
    previous = now;
    byId('updated').textContent = `updated ${new Date(snapshot.time).toLocaleTimeString()}`;
    drawChart();
  }

  function buildProviderTable() {
    const table = byId('providers');
    const head = make('tr');
    head.append(make('th', {}, 'provider'));
    for (const outcome of outcomes) head.append(make('th', {}, outcome));
    for (const title of ['in flight', 'retries', 'dead letters', 'up']) head.append(make('th', {}, title));
    table.tHead.replaceChildren(head);
    const rows = providers.map((provider) => {
      const row = make('tr', { 'data-provider': provider });
      row.append(make('th', {}, provider));
      const cell = (name, labels) => make('td', { 'data-metric': name, 'data-labels': labelText(labels) }, '–');
      for (const outcome of outcomes) row.append(cell('herald_deliveries_total', { outcome, provider }));
      row.append(cell('herald_deliveries_in_flight', { provider }));
      row.append(cell('herald_retries_total', { provider }));
      row.append(cell('herald_dead_letters_total', { provider }));
      row.append(cell('herald_provider_up', { provider }));
      return row;
    });
    table.tBodies[0].replaceChildren(...rows);
  }

  // One row per front-end that sent raw tokens (gorush, apns-ms, the Matrix gateway, …): what the
  // intake queued for it and what it refused.
  function buildFrontEndTable() {
    const rows = origins.map((origin) => {
      const row = make('tr', { 'data-origin': origin });
      row.append(make('th', {}, origin));
      row.append(make('td', { 'data-metric': 'herald_raw_sends_total', 'data-labels': labelText({ origin, result: 'accepted' }) }, '–'));
      row.append(make('td', { 'data-sum': 'herald_raw_sends_total', 'data-where': JSON.stringify({ origin, result: 'rejected' }) }, '–'));
      return row;
    });
    byId('front-ends').tBodies[0].replaceChildren(...rows);
  }

  function drawChart() {
    const canvas = byId('rate-chart');
    const width = canvas.clientWidth || canvas.width;
    const height = canvas.height;
    if (canvas.width !== width) canvas.width = width;
    const context = canvas.getContext('2d');
    context.clearRect(0, 0, width, height);
    const top = Math.max(1, ...history.map((point) => point.deliveries));
    const end = previous ? previous.time : Date.now();
    // The span grows with the history, from one minute up to the full ten, so a page opened a
    // moment ago does not squeeze its few points into the right edge.
    const seconds = Math.min(chartSeconds, Math.max(60, Math.ceil(history.length ? (end - history[0].time) / 60000 : 1) * 60));
    const x = (t) => 40 + ((t - (end - seconds * 1000)) / (seconds * 1000)) * (width - 50);
    const y = (v) => height - 20 - (v / top) * (height - 30);
    context.strokeStyle = '#ccd';
    context.fillStyle = '#667';
    context.font = '11px sans-serif';
    context.beginPath();
    context.moveTo(40, y(0));
    context.lineTo(width - 10, y(0));
    context.moveTo(40, y(top));
    context.lineTo(width - 10, y(top));
    context.stroke();
    context.fillText(rate(top), 2, y(top) + 4);
    context.fillText('0', 2, y(0) + 4);
    context.fillText(seconds === 60 ? '1 min ago' : `${seconds / 60} min ago`, 40, height - 4);
    context.fillText('now', width - 32, height - 4);
    context.strokeStyle = '#2a6ad8';
    context.lineWidth = 2;
    context.beginPath();
    history.forEach((point, index) => {
      if (index === 0) context.moveTo(x(point.time), y(point.deliveries));
      else context.lineTo(x(point.time), y(point.deliveries));
    });
    context.stroke();
    context.lineWidth = 1;
  }

  function connect() {
    const state = byId('stream-state');
    const source = new EventSource('/dashboard/stream');
    source.onopen = () => { state.textContent = 'live'; state.className = 'state live'; };
    source.onmessage = (message) => applySnapshot(JSON.parse(message.data));
    // EventSource reconnects by itself (the stream's `retry`); the page only says so.
    source.onerror = () => { state.textContent = 'reconnecting…'; state.className = 'state down'; };
  }

  // --- the feedback log --------------------------------------------------------------------

  const feedback = [];
  let feedbackCursor = null;

  async function loadFeedback() {
    // Pages forward from the last entry seen (the first time, from an hour ago) and keeps the newest.
    for (let page = 0; page < 10; page++) {
      const query = feedbackCursor === null ? `since=${Math.floor(Date.now() / 1000) - 3600}` : `after=${feedbackCursor}`;
      const result = await getJSON(`/feedback?limit=1000&${query}`);
      if (result.next !== null) feedbackCursor = result.next;
      feedback.push(...result.entries);
      if (result.entries.length < 1000) break;
    }
    feedback.splice(0, Math.max(0, feedback.length - 20));
    const rows = feedback.slice().reverse().map((entry) => {
      const row = make('tr', { 'data-feedback': String(entry.id) });
      for (const text of [time(entry.time), entry.proto, entry.token, entry.reason, entry.action, entry.origin]) {
        row.append(make('td', {}, text));
      }
      return row;
    });
    byId('feedback').tBodies[0].replaceChildren(...rows);
    byId('feedback-empty').hidden = rows.length > 0;
  }

  // --- dead letters ------------------------------------------------------------------------

  let shownDeadLetters = null;

  async function loadDeadLetters() {
    const result = await getJSON('/dead-letters?limit=100');
    // Unchanged lists are left alone, so a button is never replaced under the pointer.
    const ids = result.entries.map((letter) => letter.id).join(',');
    if (ids === shownDeadLetters) return;
    shownDeadLetters = ids;
    const rows = result.entries.map((letter) => {
      const row = make('tr', { 'data-dead-letter': String(letter.id) });
      for (const text of [time(letter.time), letter.proto, letter.event, letter.token, letter.reason, String(letter.attempts)]) {
        row.append(make('td', {}, text));
      }
      const button = make('button', { type: 'button', 'data-replay': String(letter.id) }, 'Replay');
      button.addEventListener('click', () => replay({ ids: [letter.id] }));
      const action = make('td');
      action.append(button);
      row.append(action);
      return row;
    });
    byId('dead-letters').tBodies[0].replaceChildren(...rows);
    byId('dead-letters-empty').hidden = rows.length > 0;
    byId('replay-all').disabled = rows.length === 0;
  }

  async function replay(selection) {
    const status = byId('dead-letter-status');
    try {
      const result = await getJSON('/dead-letters/replay', {
        method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(selection),
      });
      status.textContent = `replayed ${result.replayed}` + (result.orphaned ? `, ${result.orphaned} without subscriber` : '');
    } catch (error) {
      status.textContent = `replay failed: ${error.message}`;
    }
    await loadDeadLetters().catch(showError);
  }

  // --- the subscriber search ---------------------------------------------------------------

  async function search(event) {
    event.preventDefault();
    const query = new FormData(event.target).get('q').trim();
    const results = byId('search-results');
    if (!query) return;
    results.textContent = 'searching…';
    try {
      const result = await getJSON(`/dashboard/subscribers?q=${encodeURIComponent(query)}`);
      if (result.subscribers.length === 0) {
        results.replaceChildren(make('p', { class: 'muted', 'data-search-empty': '' }, `No subscriber has the id or token ${query}.`));
        return;
      }
      results.replaceChildren(...result.subscribers.map((subscriber) => {
        const block = make('div', { class: 'subscriber', 'data-subscriber': subscriber.id });
        block.append(make('h3', {}, `${subscriber.id} · ${subscriber.proto}`));
        const facts = make('dl');
        const fields = [['token', subscriber.token], ['created', new Date(subscriber.created * 1000).toLocaleString()],
          ['updated', new Date(subscriber.updated * 1000).toLocaleString()], ['failures', String(subscriber.failures)]];
        for (const name of ['lang', 'badge', 'version', 'category', 'contentAvailable']) {
          if (subscriber[name] !== undefined) fields.push([name, subscriber[name]]);
        }
        for (const [name, value] of fields) facts.append(make('dt', {}, name), make('dd', {}, value));
        block.append(facts);
        const list = make('ul', { class: 'subscriptions' });
        for (const subscription of subscriber.subscriptions) {
          list.append(make('li', { 'data-subscription': subscription.event },
            subscription.event + (subscription.ignore_message ? ' (silent)' : '')));
        }
        if (subscriber.subscriptions.length === 0) list.append(make('li', { class: 'muted' }, 'no subscriptions'));
        block.append(list);
        return block;
      }));
    } catch (error) {
      results.textContent = `search failed: ${error.message}`;
    }
  }

  // --- API tokens --------------------------------------------------------------------------

  // Creation and expiry can be months apart: the date as well as the time.
  const when = (seconds) => (seconds === null || seconds === undefined ? '–' : new Date(seconds * 1000).toLocaleString());
  const scope = (names) => (names === null || names === undefined ? 'all' : names.join(', '));
  const commaList = (text) => {
    const items = text.split(',').map((item) => item.trim()).filter((item) => item !== '');
    return items.length ? items : null;
  };

  // The secret is shown once, until the next create or revoke; it is never logged.
  function showSecret(secret) {
    byId('token-secret').textContent = secret || '';
    byId('token-created').hidden = !secret;
  }

  function tokensFailed(error) {
    byId('token-status').textContent = `tokens: ${error.message}`;
  }

  async function loadTokens() {
    const result = await sendJSON('/tokens');
    // A caller an app restricts cannot manage tokens (and is refused the page itself).
    if (result.status === 403) {
      byId('tokens').closest('section').hidden = true;
      return;
    }
    if (!result.ok) throw new Error(failure(result));
    const rows = result.body.map((token) => {
      const row = make('tr', { 'data-token': token.name });
      for (const text of [token.name, token.realms.join(', '), scope(token.providers), scope(token.events),
        when(token.created), when(token.expires), when(token.last_used)]) {
        row.append(make('td', {}, text));
      }
      const button = make('button', { type: 'button', 'data-revoke': token.name }, 'Revoke');
      button.addEventListener('click', () => revoke(token.name));
      const action = make('td');
      action.append(button);
      row.append(action);
      return row;
    });
    byId('tokens').tBodies[0].replaceChildren(...rows);
    byId('tokens-empty').hidden = rows.length > 0;
  }

  async function createToken(event) {
    event.preventDefault();
    const form = event.target;
    const fields = new FormData(form);
    const status = byId('token-status');
    showSecret(null);
    const expires = fields.get('expires').trim();
    const request = {
      name: fields.get('name').trim(), realms: fields.getAll('realm'),
      providers: commaList(fields.get('providers')), events: commaList(fields.get('events')), expires_in: expires || null,
    };
    status.textContent = 'creating…';
    try {
      const result = await sendJSON('/tokens', {
        method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(request),
      });
      if (result.ok) {
        showSecret(result.body.token);
        status.textContent = `created ${result.body.name}`;
        form.reset();
      } else {
        status.textContent = `create failed: ${failure(result)}`;
      }
    } catch (error) {
      status.textContent = `create failed: ${error.message}`;
    }
    await loadTokens().catch(tokensFailed);
  }

  async function revoke(name) {
    const status = byId('token-status');
    showSecret(null);
    try {
      const result = await sendJSON(`/tokens/${encodeURIComponent(name)}`, { method: 'DELETE' });
      status.textContent = result.ok ? `revoked ${name}` : `revoke failed: ${failure(result)}`;
    } catch (error) {
      status.textContent = `revoke failed: ${error.message}`;
    }
    await loadTokens().catch(tokensFailed);
  }

  function showError(error) {
    byId('error').textContent = error.message;
  }

  function refreshLists() {
    Promise.all([loadFeedback(), loadDeadLetters()])
      .then(() => { byId('error').textContent = ''; })
      .catch(showError);
  }

  document.addEventListener('DOMContentLoaded', () => {
    connect();
    refreshLists();
    setInterval(refreshLists, 3000);
    byId('search').addEventListener('submit', search);
    byId('replay-all').addEventListener('click', () => replay({ all: true }));
    byId('token-form').addEventListener('submit', createToken);
    loadTokens().catch(tokensFailed);
    window.addEventListener('resize', drawChart);
  });
})();
"""#
}
