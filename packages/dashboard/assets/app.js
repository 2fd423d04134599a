// The dashboard page: lit components rendering the view the server pushes over server-sent
// events (/api/events). Light DOM, so style.css applies and checkers see one document.
import { LitElement, html, nothing } from 'lit';
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from 'chart.js';
import { STATUS_FILTERS, filterRows } from './row-filter.js';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

/**
 * Trades the token for a session cookie (HttpOnly, SameSite=Strict) that the page's requests and
 * its event stream then carry; resolves with whether the server took it.
 */
async function login(token) {
  const res = await fetch('/api/session', { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  return res.ok;
}

// The printed URL carries the token in its fragment (never sent to a server, nor as a Referer):
// drop it from the address bar and the history at once, then log in with it.
const fromUrl = new URLSearchParams(location.hash.slice(1)).get('token');
if (fromUrl !== null) history.replaceState(null, '', `${location.pathname}${location.search}`);
const loggedIn = fromUrl === null ? Promise.resolve(false) : login(fromUrl);

async function api(path) {
  const res = await fetch(path);
  if (res.status === 401) throw Object.assign(new Error('unauthorized'), { status: 401 });
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
  return res.json();
}

/** `3m 12s`, `2h 5m`, `4d 1h` since an RFC 3339 time. */
function age(since, now) {
  if (since === undefined) return '-';
  let s = Math.max(0, Math.floor((now - Date.parse(since)) / 1000));
  const units = [
    ['d', 86400],
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ];
  const parts = [];
  for (const [u, n] of units) {
    if (s >= n || (u === 's' && parts.length === 0)) parts.push(`${Math.floor(s / n)}${u}`);
    s %= n;
    if (parts.length === 2) break;
  }
  return parts.join(' ');
}

class Light extends LitElement {
  createRenderRoot() {
    return this;
  }
}

/** A Chart.js bar chart kept in step with its `config` property. */
class BarChart extends Light {
  static properties = { config: { attribute: false }, label: {} };
  render() {
    return html`<div class="chart"><canvas role="img" aria-label=${this.label ?? 'chart'}></canvas></div>`;
  }
  updated() {
    const canvas = this.querySelector('canvas');
    if (this.chart !== undefined && this.chart.canvas === canvas) {
      this.chart.data = this.config.data;
      this.chart.update('none');
      return;
    }
    this.chart?.destroy();
    this.chart = new Chart(canvas, { ...this.config, options: { animation: false, maintainAspectRatio: false, ...this.config.options } });
  }
  disconnectedCallback() {
    super.disconnectedCallback();
    this.chart?.destroy();
    this.chart = undefined;
  }
}
customElements.define('kf-bar-chart', BarChart);

const QUEUE_SOURCE = { redis: ', from Redis', metrics: ', from the controller manager metrics', none: '' };

/** The queue cell of a cluster without counts: no source given, the source failing, or not read yet. */
function queueMissing(q) {
  if (q.source === 'none') return html`<span class="muted">no --redis-url or --metrics-url</span>`;
  if (q.problem !== undefined) return html`<span class="tone-error" title=${q.problem}>unavailable</span>`;
  return html`<span class="muted">not read yet</span>`;
}

class ClustersPage extends Light {
  static properties = { view: { attribute: false }, now: { attribute: false } };
  render() {
    const clusters = this.view.clusters;
    const withQueues = clusters.filter((c) => c.queue !== undefined);
    return html`
      <h2>Member clusters</h2>
      ${this.view.queueSource.problem === undefined ? nothing : html`<p class="tone-error queue-problem">Sync queue counts unavailable: ${this.view.queueSource.problem}</p>`}
      <table aria-label="Member clusters">
        <thead>
          <tr><th scope="col">Cluster</th><th scope="col">State</th><th scope="col">In state for</th><th scope="col">Kubernetes</th><th scope="col">Region</th><th scope="col">Zones</th><th scope="col">Sync queue (waiting / active / delayed / failed)${QUEUE_SOURCE[this.view.queueSource.source]}</th><th scope="col">API endpoint</th></tr>
        </thead>
        <tbody>
          ${clusters.map(
            (c) => html`<tr data-cluster=${c.name}>
              <th scope="row">${c.name}</th>
              <td class="tone-${c.tone}" title=${[c.reason, c.message].filter(Boolean).join(': ')}>${c.state}${c.reason ? html` <span>(${c.reason})</span>` : nothing}</td>
              <td>${age(c.since, this.now)}</td>
              <td>${c.version ?? '-'}</td>
              <td>${c.region ?? '-'}</td>
              <td>${c.zones.length === 0 ? '-' : c.zones.join(', ')}</td>
              <td>${c.queue === undefined ? queueMissing(this.view.queueSource) : `${c.queue.waiting} / ${c.queue.active} / ${c.queue.delayed} / ${c.queue.failed}`}</td>
              <td>${c.apiEndpoint}</td>
            </tr>`,
          )}
        </tbody>
      </table>
      ${
        withQueues.length === 0
          ? nothing
          : html`<h2 class="backlog">Sync queue backlog</h2>
            <kf-bar-chart
              label="Sync queue jobs per cluster"
              .config=${{
                type: 'bar',
                data: {
                  labels: withQueues.map((c) => c.name),
                  datasets: [
                    { label: 'waiting', data: withQueues.map((c) => c.queue.waiting), backgroundColor: '#0969da' },
                    { label: 'active', data: withQueues.map((c) => c.queue.active), backgroundColor: '#1a7f37' },
                    { label: 'delayed', data: withQueues.map((c) => c.queue.delayed), backgroundColor: '#9a6700' },
                    { label: 'failed', data: withQueues.map((c) => c.queue.failed), backgroundColor: '#cf222e' },
                  ],
                },
                options: { scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true, ticks: { precision: 0 } } } },
              }}
            ></kf-bar-chart>`
      }
    `;
  }
}
customElements.define('kf-clusters', ClustersPage);

const yamlish = (value) => (value === undefined || value === null ? '(none)' : JSON.stringify(value, null, 2));

/** Rendered against live: the fields the member copy lacks or holds otherwise. */
function differences(d) {
  if (d.differences === undefined) {
    return html`<section class="differences" data-differ="unknown" aria-label="Rendered against the member copy"><h3>Rendered vs ${d.cluster}</h3><p class="muted">Cannot compare: ${d.live === undefined ? d.liveProblem : d.renderProblem}.</p></section>`;
  }
  if (d.differences.length === 0) {
    return html`<section class="differences" data-differ="false" aria-label="Rendered against the member copy"><h3>Rendered vs ${d.cluster}</h3><p class="tone-ok">The same: the member copy holds every rendered field (fields only the member sets, such as status and defaults, are not compared).</p></section>`;
  }
  return html`<section class="differences" data-differ="true" aria-label="Rendered against the member copy">
    <h3>Rendered vs ${d.cluster}</h3>
    <p class="tone-error">${d.differences.length === 1 ? '1 field differs' : `${d.differences.length} fields differ`} between the rendered object and the member copy.</p>
    <table aria-label="Fields that differ">
      <thead><tr><th scope="col">Field</th><th scope="col">Rendered</th><th scope="col">In ${d.cluster}</th></tr></thead>
      <tbody>${d.differences.map((x) => html`<tr data-path=${x.path}><th scope="row"><code>${x.path}</code></th><td><code>${JSON.stringify(x.rendered)}</code></td><td><code>${'live' in x ? JSON.stringify(x.live) : '(absent)'}</code></td></tr>`)}</tbody>
    </table>
  </section>`;
}

class ObjectDetailPanel extends Light {
  static properties = {
    row: { attribute: false },
    clusters: { attribute: false },
    cluster: { state: true },
    detail: { state: true },
    error: { state: true },
  };
  willUpdate(changed) {
    if (changed.has('row') || changed.has('clusters')) {
      const placed = this.clusters.filter((c) => this.row.cells[c]?.status !== '');
      if (this.cluster === undefined || !this.clusters.includes(this.cluster) || changed.get('row')?.id !== this.row.id)
        this.cluster = placed[0] ?? this.clusters[0];
    }
  }
  updated(changed) {
    if (changed.has('cluster') || (changed.has('row') && changed.get('row')?.id !== this.row.id)) void this.load();
  }
  async load() {
    const r = this.row;
    const q = new URLSearchParams({ type: r.type, namespace: r.namespace, name: r.name, cluster: this.cluster ?? '' });
    try {
      this.detail = await api(`/api/detail?${q}`);
      this.error = undefined;
    } catch (err) {
      this.error = err.message;
    }
  }
  render() {
    const r = this.row;
    const d = this.detail;
    return html`<section class="detail" aria-label="Details of ${r.kind} ${r.name}">
      <h2>${r.kind} ${r.namespace === '' ? '' : `${r.namespace}/`}${r.name}</h2>
      <p>Propagation: <span class="tone-${r.propagationTone}">${r.propagation}</span>${r.message ? html` — ${r.message}` : nothing}. Placement: ${r.placement}</p>
      <label>Member cluster
        <select @change=${(e) => (this.cluster = e.target.value)}>
          ${this.clusters.map((c) => html`<option value=${c} ?selected=${c === this.cluster}>${c} (${r.cells[c]?.status || 'not placed'})</option>`)}
        </select>
      </label>
      ${this.error ? html`<p class="tone-error">${this.error}</p>` : nothing}
      ${
        d === undefined
          ? nothing
          : html`<div class="detail-grid">
            <div><h3>Template</h3><pre>${yamlish(d.template)}</pre></div>
            <div><h3>Placement</h3><pre>${yamlish(d.placement)}</pre><h3>Overrides</h3><pre>${yamlish(d.overrides)}</pre></div>
            <div><h3>Remote status (${d.clusterStatus ?? 'not reported'})</h3><pre data-part="remote-status">${yamlish(d.remoteStatus)}</pre></div>
          </div>
          <div class="compare">
            <div><h3>Rendered for ${d.cluster} (by the control plane)</h3><pre data-part="rendered">${d.rendered === undefined ? d.renderProblem : yamlish(d.rendered)}</pre></div>
            <div><h3>Object in ${d.cluster}</h3><pre data-part="live">${d.live === undefined ? d.liveProblem : yamlish(d.live)}</pre></div>
          </div>
          ${differences(d)}`
      }
    </section>`;
  }
}
customElements.define('kf-object-detail', ObjectDetailPanel);

class ObjectsPage extends Light {
  static properties = {
    view: { attribute: false },
    type: { state: true },
    namespace: { state: true },
    name: { state: true },
    status: { state: true },
    selected: { state: true },
  };
  constructor() {
    super();
    this.type = '';
    this.namespace = '';
    this.name = '';
    this.status = '';
  }
  rows() {
    return filterRows(this.view.objects, { type: this.type, namespace: this.namespace, name: this.name, status: this.status });
  }
  /** Up/Down (and Home/End) move between the rows' buttons; Enter or Space opens a row. */
  onKey(e) {
    const buttons = [...this.querySelectorAll('button.row')];
    const i = buttons.indexOf(e.target);
    if (i < 0) return;
    const next = { ArrowDown: i + 1, ArrowUp: i - 1, Home: 0, End: buttons.length - 1 }[e.key];
    if (next === undefined) return;
    e.preventDefault();
    buttons[Math.max(0, Math.min(buttons.length - 1, next))].focus();
  }
  render() {
    const clusters = this.view.clusters;
    const namespaces = [...new Set(this.view.objects.map((r) => r.namespace))].sort();
    const rows = this.rows();
    const selected = this.view.objects.find((r) => r.id === this.selected);
    const names = [...new Set([...clusters.map((c) => c.name), ...rows.flatMap((r) => Object.keys(r.cells))])];
    const clusterState = new Map(clusters.map((c) => [c.name, c]));
    return html`
      <h2>Federated objects</h2>
      <div class="filters">
        <label>Type
          <select @change=${(e) => (this.type = e.target.value)}>
            <option value="">every type</option>
            ${this.view.types.map((t) => html`<option value=${t.name} ?selected=${t.name === this.type}>${t.kind}</option>`)}
          </select>
        </label>
        <label>Namespace
          <select @change=${(e) => (this.namespace = e.target.value)}>
            <option value="">every namespace</option>
            ${namespaces.map((n) => html`<option value=${n} ?selected=${n === this.namespace}>${n === '' ? '(cluster-scoped)' : n}</option>`)}
          </select>
        </label>
        <label>Name contains <input type="search" .value=${this.name} @input=${(e) => (this.name = e.target.value)} /></label>
        <label>Status
          <select @change=${(e) => (this.status = e.target.value)}>
            ${STATUS_FILTERS.map(([v, t]) => html`<option value=${v} ?selected=${v === this.status}>${t}</option>`)}
          </select>
        </label>
        <span class="muted">${rows.length} of ${this.view.objects.length} objects</span>
      </div>
      <table class="matrix" aria-label="Federated objects by member cluster" @keydown=${(e) => this.onKey(e)}>
        <thead>
          <tr>
            <th scope="col">Object</th><th scope="col">Kind</th><th scope="col">Namespace</th><th scope="col">Propagation</th>
            ${names.map((n) => {
              const c = clusterState.get(n);
              const tone = c === undefined ? 'none' : c.tone === 'ok' ? 'none' : 'error';
              return html`<th scope="col" class="cluster tone-${tone}" data-cluster=${n} title=${c === undefined ? 'no KubeFedCluster' : `${c.state}${c.reason ? ` (${c.reason})` : ''}`}>${n}${c !== undefined && c.state !== 'Ready' ? html`<br /><span>${c.state}</span>` : nothing}</th>`;
            })}
          </tr>
        </thead>
        <tbody>
          ${rows.map(
            (r) => html`<tr data-id=${r.id} class=${r.id === this.selected ? 'selected' : ''}>
              <th scope="row"><button class="row" aria-expanded=${r.id === this.selected ? 'true' : 'false'} @click=${() => (this.selected = r.id === this.selected ? undefined : r.id)}>${r.name}</button></th>
              <td>${r.kind}</td>
              <td>${r.namespace || '-'}</td>
              <td class="tone-${r.propagationTone}" title=${r.message ?? ''}>${r.propagation}</td>
              ${names.map((n) => {
                const cell = r.cells[n] ?? { status: '', tone: 'none', title: `${n}: not placed` };
                return html`<td class="cell tone-${cell.tone}" data-cluster=${n} title=${cell.title} aria-label=${cell.title}>${cell.status === '' ? '—' : cell.status}</td>`;
              })}
            </tr>`,
          )}
        </tbody>
      </table>
      ${selected === undefined ? nothing : html`<kf-object-detail .row=${selected} .clusters=${names}></kf-object-detail>`}
    `;
  }
}
customElements.define('kf-objects', ObjectsPage);

class SchedulingPage extends Light {
  static properties = { view: { attribute: false } };
  render() {
    const rsps = this.view.scheduling;
    if (rsps.length === 0) return html`<h2>Replica scheduling</h2><p>No ReplicaSchedulingPreference exists.</p>`;
    return html`<h2>Replica scheduling</h2>
      ${rsps.map(
        (
          s,
        ) => html`<section class="rsp" data-rsp="${s.namespace}/${s.name}" aria-label="ReplicaSchedulingPreference ${s.namespace}/${s.name}">
          <h3>${s.namespace}/${s.name} — ${s.targetKind}, ${s.totalReplicas} replicas</h3>
          ${s.problem ? html`<p class="tone-error">${s.problem}</p>` : nothing}
          <kf-bar-chart
            label="Planned and actual replicas of ${s.namespace}/${s.name} per cluster"
            .config=${{
              type: 'bar',
              data: {
                labels: s.clusters.map((c) => c.name),
                datasets: [
                  { label: 'planned', data: s.clusters.map((c) => c.planned), backgroundColor: '#0969da' },
                  { label: 'running (member reports)', data: s.clusters.map((c) => c.replicas ?? 0), backgroundColor: '#1a7f37' },
                  { label: 'ready', data: s.clusters.map((c) => c.ready ?? 0), backgroundColor: '#8250df' },
                ],
              },
              options: { scales: { y: { beginAtZero: true, ticks: { precision: 0 } } } },
            }}
          ></kf-bar-chart>
          <table aria-label="Plan of ${s.namespace}/${s.name}">
            <thead><tr><th scope="col">Cluster</th><th scope="col">Planned</th><th scope="col">Running</th><th scope="col">Ready</th><th scope="col">Why (kubefedctl plan)</th></tr></thead>
            <tbody>
              ${s.clusters.map((c) => {
                const why = s.explanation?.clusters.find((e) => e.name === c.name)?.why ?? '-';
                return html`<tr data-cluster=${c.name}><th scope="row">${c.name}</th><td>${c.planned}</td><td>${c.replicas ?? '-'}</td><td>${c.ready ?? '-'}</td><td>${why}</td></tr>`;
              })}
            </tbody>
          </table>
          ${s.explanation === undefined ? nothing : html`<p class="muted">Plan: placed ${s.explanation.placed}, unplaced ${s.explanation.unplaced}; rebalance ${String(s.explanation.rebalance)}.</p>`}
        </section>`,
      )}`;
  }
}
customElements.define('kf-scheduling', SchedulingPage);

const TABS = [
  ['clusters', 'Clusters'],
  ['objects', 'Federated objects'],
  ['scheduling', 'Scheduling'],
];

class Dashboard extends Light {
  static properties = {
    view: { state: true },
    tab: { state: true },
    needToken: { state: true },
    tokenRefused: { state: true },
    live: { state: true },
    now: { state: true },
  };
  constructor() {
    super();
    this.tab = 'clusters';
    this.live = false;
    this.now = Date.now();
  }
  connectedCallback() {
    super.connectedCallback();
    this.clock = setInterval(() => (this.now = Date.now()), 1000);
    void this.connect();
  }
  disconnectedCallback() {
    super.disconnectedCallback();
    clearInterval(this.clock);
    this.events?.close();
  }
  async connect() {
    await loggedIn;
    try {
      this.view = await api('/api/view');
    } catch (err) {
      if (err.status === 401) {
        this.needToken = true;
        return;
      }
      throw err;
    }
    this.needToken = false;
    this.events?.close();
    this.events = new EventSource('/api/events');
    this.events.addEventListener('view', (e) => {
      this.view = JSON.parse(e.data);
      this.live = true;
    });
    this.events.addEventListener('error', () => (this.live = false));
  }
  onTabKey(e) {
    const i = TABS.findIndex(([id]) => id === this.tab);
    const next = { ArrowRight: i + 1, ArrowLeft: i - 1 }[e.key];
    if (next === undefined) return;
    this.tab = TABS[(next + TABS.length) % TABS.length][0];
    void this.updateComplete.then(() => this.querySelector('[role="tab"][aria-selected="true"]')?.focus());
  }
  render() {
    if (this.needToken) {
      return html`<main><form class="token" @submit=${async (e) => {
        e.preventDefault();
        this.tokenRefused = !(await login(new FormData(e.target).get('token')));
        if (!this.tokenRefused) void this.connect();
      }}>
        <h1>KubeFed fleet dashboard</h1>
        <label for="token">Token printed by kubefedctl dashboard</label>
        <input id="token" name="token" type="password" autocomplete="off" required aria-describedby="token-problem" />
        <p id="token-problem" class="tone-error" role="alert">${this.tokenRefused ? 'That token was not accepted.' : ''}</p>
        <button type="submit">Open</button>
      </form></main>`;
    }
    return html`
      <header>
        <h1>KubeFed fleet</h1>
        <nav role="tablist" aria-label="Pages" @keydown=${(e) => this.onTabKey(e)}>
          ${TABS.map(
            ([id, label]) =>
              html`<button role="tab" id="tab-${id}" aria-controls="page" aria-selected=${this.tab === id ? 'true' : 'false'} tabindex=${this.tab === id ? '0' : '-1'} @click=${() => (this.tab = id)}>${label}</button>`,
          )}
        </nav>
        <span class="live" role="status">${this.live ? 'live' : 'connecting…'}</span>
      </header>
      <main id="page" role="tabpanel" aria-labelledby="tab-${this.tab}">
        ${
          this.view === undefined
            ? html`<p>Loading…</p>`
            : this.tab === 'clusters'
              ? html`<kf-clusters .view=${this.view} .now=${this.now}></kf-clusters>`
              : this.tab === 'objects'
                ? html`<kf-objects .view=${this.view}></kf-objects>`
                : html`<kf-scheduling .view=${this.view}></kf-scheduling>`
        }
      </main>
    `;
  }
}
customElements.define('kf-dashboard', Dashboard);
