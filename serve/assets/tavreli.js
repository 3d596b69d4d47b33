/* tavreli serve: the script of the runs list, the run page and the game
 * viewer (docs/serve.md). Plain JavaScript, no libraries, works offline.
 * Everything taken from JSON is inserted as text (textContent, attribute
 * values), never as HTML. */
(function () {
  'use strict';

  const SVGNS = 'http://www.w3.org/2000/svg';
  const POLL_MS = 2000;

  const tv = {};

  /* ---------- DOM helpers ---------- */

  // Append children (nodes, strings as text, arrays, null skipped) to a node.
  function append(node, kids) {
    for (const k of [].concat(kids)) {
      if (k === null || k === undefined || k === false) continue;
      if (Array.isArray(k)) append(node, k);
      else node.appendChild(typeof k === 'object' ? k : document.createTextNode(String(k)));
    }
    return node;
  }

  // tv.el('td', {class: 'num', title: 'x'}, 'text', child...): an HTML element.
  tv.el = function (tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v !== null && v !== undefined) e.setAttribute(k, v);
    }
    return append(e, kids);
  };

  // tv.svg('rect', {...}, kids...): an SVG element.
  tv.svg = function (tag, attrs, ...kids) {
    const e = document.createElementNS(SVGNS, tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v !== null && v !== undefined) e.setAttribute(k, v);
    }
    return append(e, kids);
  };

  const $ = (id) => document.getElementById(id);
  const link = (href, text) => tv.el('a', { href: href }, text);
  const td = (text, cls, title) => tv.el('td', { class: cls, title: title }, text);
  const num = (text, title) => td(text, 'num', title);

  // Replace the contents of a node.
  function fill(node, ...kids) {
    node.textContent = '';
    return append(node, kids);
  }

  // Query parameter of the page's URL.
  tv.param = (name) => new URLSearchParams(location.search).get(name);

  tv.runURL = (id) => '/run?run=' + encodeURIComponent(id);
  tv.gameURL = (id, g, ply) => '/game?run=' + encodeURIComponent(id) + '&game=' + g +
    (ply !== undefined ? '&ply=' + ply : '');

  /* ---------- fetching and polling ---------- */

  tv.fetchJSON = function (url) {
    return fetch(url, { cache: 'no-store' }).then((r) => {
      if (!r.ok) {
        return r.text().then((t) => {
          throw new Error(url + ': HTTP ' + r.status + (t ? ' ' + t.slice(0, 200) : ''));
        });
      }
      return r.json();
    });
  };

  // Show "updated HH:MM:SS", or the error banner when err is set.
  tv.status = function (err, once) {
    const banner = $('error');
    if (err) {
      if (banner) {
        banner.textContent = (once ? 'Loading failed: ' : 'Update failed: ') + (err.message || err) +
          (once ? '' : ' (still retrying every 2 s)');
        banner.hidden = false;
      }
      console.error(err);
      return;
    }
    if (banner) banner.hidden = true;
    const up = $('updated');
    if (up) up.textContent = 'updated ' + tv.clock(new Date());
  };

  // Call fn (which returns a promise) now and POLL_MS after each completion.
  tv.poll = function (fn) {
    const tick = () => {
      Promise.resolve().then(fn).then(() => tv.status(null), (e) => tv.status(e))
        .then(() => setTimeout(tick, POLL_MS));
    };
    tick();
  };

  /* ---------- formatting (null and undefined show as "-") ---------- */

  const none = (x) => x === null || x === undefined || (typeof x === 'number' && !isFinite(x));
  const pad2 = (n) => String(n).padStart(2, '0');

  tv.num = (x, digits) => none(x) ? '-' : Number(x).toFixed(digits === undefined ? 0 : digits);
  tv.int = (x) => none(x) ? '-' : Math.round(x).toLocaleString('en-US');
  tv.signed = (x, digits) => none(x) ? '-' : (x > 0 ? '+' : '') + tv.num(x, digits);
  // "+12 ± 20" (value and its 95% error margin).
  tv.pm = (x, err, digits) => none(x) ? '-' :
    tv.signed(x, digits || 0) + (none(err) ? '' : ' ± ' + tv.num(err, digits || 0));
  tv.clock = (d) => pad2(d.getHours()) + ':' + pad2(d.getMinutes()) + ':' + pad2(d.getSeconds());

  // 5400 -> "1 h 30 min", 95 -> "1 min 35 s", 7 -> "7 s".
  tv.duration = function (s) {
    if (none(s)) return '-';
    s = Math.max(0, Math.round(s));
    const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = s % 60;
    if (h > 0) return h + ' h ' + m + ' min';
    if (m > 0) return m + ' min ' + sec + ' s';
    return sec + ' s';
  };

  // Relative time of a Unix time t, seen at Unix time now.
  tv.ago = function (t, now) {
    if (none(t)) return '-';
    const d = Math.max(0, (none(now) ? Date.now() / 1000 : now) - t);
    if (d < 5) return 'just now';
    if (d < 60) return Math.round(d) + ' s ago';
    if (d < 3600) return Math.floor(d / 60) + ' min ago';
    if (d < 86400) return Math.floor(d / 3600) + ' h ago';
    return Math.floor(d / 86400) + ' d ago';
  };

  tv.short = (x) => none(x) ? '-' : String(Math.round(x * 100) / 100); // at most 2 decimals
  const stamp = (t) => none(t) ? null : new Date(t * 1000).toLocaleString();

  /* ---------- shared pieces of the runs list and the run page ---------- */

  // The state, with its detail as a tooltip, the resume command and the error.
  function stateCell(run) {
    return [
      tv.el('span', { class: 'state state-' + run.state, title: run.state_detail || null }, run.state || '-'),
      run.resume ? tv.el('div', null, tv.el('code', { title: 'continues the run' }, run.resume)) : null,
      run.error ? tv.el('div', { class: 'err' }, run.error) : null,
    ];
  }

  const gamesText = (run) => tv.int(run.games) + (none(run.planned) ? '' : ' / ' + tv.int(run.planned));

  function verdictClass(v) {
    if (/H1/.test(v || '')) return 'verdict-h1';
    if (/H0/.test(v || '')) return 'verdict-h0';
    return null;
  }

  // "LLR 1.23 [-2.94, 2.94] running" and a bar of LLR between the bounds.
  tv.sprtSummary = function (s) {
    if (!s) return '-';
    const frac = (none(s.llr) || none(s.lower) || none(s.upper) || s.upper <= s.lower) ? 0 :
      Math.min(1, Math.max(0, (s.llr - s.lower) / (s.upper - s.lower)));
    const zero = (none(s.lower) || none(s.upper) || s.upper <= s.lower) ? null :
      (-s.lower / (s.upper - s.lower));
    const title = 'SPRT elo0 ' + tv.num(s.elo0, 1) + ', elo1 ' + tv.num(s.elo1, 1) +
      (s.model ? ', ' + s.model : '');
    return tv.el('span', { title: title },
      'LLR ', tv.el('span', { class: 'num' }, tv.num(s.llr, 2)),
      ' [' + tv.num(s.lower, 2) + ', ' + tv.num(s.upper, 2) + '] ',
      tv.el('span', { class: verdictClass(s.verdict) }, s.verdict || ''),
      bar(frac, zero));
  };

  // A progress bar filled to frac (0..1), with a tick at zero (0..1 or null).
  // Set through the CSSOM, so no inline style attribute is needed.
  function bar(frac, zero) {
    const fillEl = tv.el('span'), b = tv.el('div', { class: 'bar' }, fillEl);
    fillEl.style.width = (frac * 100).toFixed(1) + '%';
    if (zero !== null && zero > 0 && zero < 1) {
      const tick = tv.el('i');
      tick.style.left = (zero * 100).toFixed(1) + '%';
      b.append(tick);
    }
    return b;
  }

  /* ---------- SVG line chart (LLR path, SPSA parameter paths) ---------- */

  // About n round tick values covering [lo, hi].
  function ticks(lo, hi, n) {
    if (hi <= lo) return [lo];
    const raw = (hi - lo) / n, mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) || raw;
    const out = [];
    for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(+v.toFixed(10));
    return out;
  }

  /* opts: {points: [[x, y]...], hlines: [{y, label, cls}], xlabel, ylabel,
   * width, height}. Returns an <svg class="chart">. */
  tv.lineChart = function (opts) {
    const W = opts.width || 560, H = opts.height || 240;
    const L = 52, R = 78, T = 12, B = 34; // margins for the axis labels
    const pts = (opts.points || []).filter((p) => Array.isArray(p) && !none(p[0]) && !none(p[1]));
    const hl = (opts.hlines || []).filter((h) => !none(h.y));
    const xs = pts.map((p) => p[0]), ys = pts.map((p) => p[1]).concat(hl.map((h) => h.y));
    let x0 = xs.length ? Math.min(...xs) : 0, x1 = xs.length ? Math.max(...xs) : 1;
    let y0 = ys.length ? Math.min(...ys) : 0, y1 = ys.length ? Math.max(...ys) : 1;
    if (x1 === x0) x1 = x0 + 1;
    if (y1 === y0) { y0 -= 1; y1 += 1; }
    const padY = (y1 - y0) * 0.06; y0 -= padY; y1 += padY;
    const sx = (x) => L + (x - x0) / (x1 - x0) * (W - L - R);
    const sy = (y) => T + (y1 - y) / (y1 - y0) * (H - T - B);
    const svg = tv.svg('svg', { class: 'chart', width: W, height: H, viewBox: `0 0 ${W} ${H}` });

    for (const t of ticks(y0, y1, 5)) {
      svg.append(tv.svg('line', { class: 'grid', x1: L, x2: W - R, y1: sy(t), y2: sy(t) }),
        tv.svg('text', { x: L - 5, y: sy(t) + 3.5, 'text-anchor': 'end' }, +t.toPrecision(6)));
    }
    for (const t of ticks(x0, x1, 6)) {
      svg.append(tv.svg('line', { class: 'grid', x1: sx(t), x2: sx(t), y1: T, y2: H - B }),
        tv.svg('text', { x: sx(t), y: H - B + 13, 'text-anchor': 'middle' }, +t.toPrecision(6)));
    }
    svg.append(tv.svg('line', { class: 'axis', x1: L, x2: L, y1: T, y2: H - B }),
      tv.svg('line', { class: 'axis', x1: L, x2: W - R, y1: H - B, y2: H - B }));
    for (const h of hl) {
      svg.append(tv.svg('line', { class: 'hline ' + (h.cls || ''), x1: L, x2: W - R, y1: sy(h.y), y2: sy(h.y) }),
        tv.svg('text', { x: W - R + 4, y: sy(h.y) + 3.5 }, h.label || ''));
    }
    if (pts.length > 1) {
      const d = pts.map((p) => sx(p[0]).toFixed(1) + ',' + sy(p[1]).toFixed(1)).join(' ');
      svg.append(tv.svg('polyline', { class: 'path', points: d }));
    }
    if (pts.length) {
      const p = pts[pts.length - 1];
      svg.append(tv.svg('circle', { class: 'dot', cx: sx(p[0]), cy: sy(p[1]), r: 3 },
        tv.svg('title', null, p[0] + ': ' + p[1])));
    } else {
      svg.append(tv.svg('text', { x: (L + W - R) / 2, y: H / 2, 'text-anchor': 'middle' }, 'no data yet'));
    }
    if (opts.xlabel) svg.append(tv.svg('text', { x: (L + W - R) / 2, y: H - 4, 'text-anchor': 'middle' }, opts.xlabel));
    if (opts.ylabel) {
      svg.append(tv.svg('text', { x: 12, y: (T + H - B) / 2, 'text-anchor': 'middle',
        transform: `rotate(-90 12 ${(T + H - B) / 2})` }, opts.ylabel));
    }
    return svg;
  };

  /* ---------- runs list ---------- */

  tv.runsPage = function () {
    const tbody = document.querySelector('#runs tbody');
    const rows = new Map(); // run id -> its <tr>, kept across refreshes

    // "+K since opened" under the count while a run grows
    function sinceOpened(run) {
      const tr = rows.get(run.id);
      const opened = tr ? Number(tr.getAttribute('data-games-opened')) : NaN;
      const k = Number(run.games) - opened;
      return k > 0 ? tv.el('div', { class: 'muted small' }, '+' + tv.int(k) + ' since opened') : null;
    }

    function cells(run, now) {
      const engines = (run.engines || []).map((e) =>
        tv.el('div', { title: e.identity || null }, tv.el('b', null, e.name), ': ', e.identity || '-'));
      return [
        tv.el('td', null, link(tv.runURL(run.id), run.name || run.id),
          run.name && run.name !== run.id ? tv.el('div', { class: 'muted small' }, run.id) : null),
        td(run.kind || '-'),
        tv.el('td', null, stateCell(run)),
        tv.el('td', { class: 'num' }, gamesText(run), sinceOpened(run)),
        num(tv.num(run.games_per_min, 1)),
        num(tv.duration(run.eta_s)),
        td(run.headline || '', 'headline-cell'),
        tv.el('td', { class: 'sprt' }, tv.sprtSummary(run.sprt)),
        tv.el('td', { class: 'engines' }, engines),
        td(run.conditions || '', 'cond'),
        td(tv.ago(run.updated, now), null, stamp(run.updated)),
      ];
    }

    function render(data) {
      if (data.dir) $('dir').textContent = 'DIR ' + data.dir;
      const runs = data.runs || [];
      const seen = new Set();
      runs.forEach((run, i) => {
        seen.add(run.id);
        let tr = rows.get(run.id);
        if (!tr) {
          // data-games-opened: the count when this page first showed the run, so that the
          // games played since can be shown (and a test can see the row grow in place)
          tr = tv.el('tr', { 'data-run': run.id, 'data-games-opened': none(run.games) ? '' : run.games });
          rows.set(run.id, tr);
        }
        tr.setAttribute('data-games', none(run.games) ? '' : run.games);
        tr.setAttribute('data-state', run.state || '');
        fill(tr, cells(run, data.now));
        if (tbody.children[i] !== tr) tbody.insertBefore(tr, tbody.children[i] || null);
      });
      for (const [id, tr] of rows) {
        if (!seen.has(id)) { tr.remove(); rows.delete(id); }
      }
      $('empty').hidden = runs.length > 0;
    }

    tv.poll(() => tv.fetchJSON('/api/runs').then(render));
  };

  /* ---------- one run ---------- */

  tv.runPage = function () {
    const id = tv.param('run') || '';
    const q = '?run=' + encodeURIComponent(id);
    document.title = id + ' - tavreli';
    $('title').textContent = id;
    $('report-link').href = '/report' + q;
    const show = (secId, on) => { $(secId).hidden = !on; return on; };

    function refereeText(rl) {
      if (!rl) return '-';
      const parts = Object.entries(rl).filter(([, n]) => n).map(([k, n]) => k + ' ' + n);
      const total = Object.values(rl).reduce((a, n) => a + (n || 0), 0);
      return total ? total + ' (' + parts.join(', ') + ')' : '0';
    }

    function renderRun(r) {
      // a store's report model (headline, SPRT with its path, standings, ...) is in r.detail
      if (r.detail) Object.assign(r, r.detail);
      document.title = (r.name || id) + ' - tavreli';
      $('title').textContent = r.name || id;
      $('headline').textContent = r.headline || '';
      fill($('summary'),
        tv.el('span', { class: 'muted' }, r.kind || ''), ' · ', stateCell(r)[0],
        r.state_detail ? ' (' + r.state_detail + ')' : '',
        ' · games ', tv.el('span', { class: 'num' }, gamesText(r)),
        ' · ', tv.num(r.games_per_min, 1), ' games/min · ETA ', tv.duration(r.eta_s),
        ' · updated ', tv.el('span', { title: stamp(r.updated) }, tv.ago(r.updated, r.now)),
        r.resume ? [tv.el('br'), 'resume with ', tv.el('code', null, r.resume)] : null,
        r.error ? [tv.el('br'), tv.el('span', { class: 'err' }, r.error)] : null);

      if (show('sec-standings', r.standings && r.standings.length)) {
        fill(document.querySelector('#standings tbody'), r.standings.map((s) =>
          tv.el('tr', { 'data-engine': s.name }, td(s.name), num(tv.int(s.games)), num(tv.num(s.points, 1)),
            num(none(s.score) ? '-' : tv.num(s.score, 1) + '%'), num(tv.pm(s.elo, s.err95)),
            td(refereeText(s.referee_lost)))));
      }

      if (show('sec-pairings', r.pairings && r.pairings.length)) {
        fill(document.querySelector('#pairings tbody'), r.pairings.map((p) => {
          const penta = p.penta || [];
          return tv.el('tr', null, td(p.a + ' vs ' + p.b), num(tv.int(p.games)),
            num('+' + tv.int(p.w) + ' =' + tv.int(p.d) + ' -' + tv.int(p.l)),
            [0, 1, 2, 3, 4].map((i) => num(tv.int(penta[i]))),
            num(tv.pm(p.elo, p.err95)), num(tv.pm(p.nelo, p.nelo_err95)));
        }));
      }

      const s = r.sprt, llr = $('llr');
      if (show('sec-sprt', !!s)) {
        llr.setAttribute('data-llr', none(s.llr) ? '' : s.llr);
        fill($('sprt-text'), tv.sprtSummary(s), ' elo0 ' + tv.short(s.elo0) + ', elo1 ' +
          tv.short(s.elo1) + (s.model ? ', ' + s.model + ' model' : ''));
        fill(llr, tv.lineChart({
          points: s.path, xlabel: 'games', ylabel: 'LLR', width: 640, height: 260,
          hlines: [{ y: s.upper, label: 'upper ' + tv.num(s.upper, 2), cls: 'bound' },
            { y: 0, label: '0' },
            { y: s.lower, label: 'lower ' + tv.num(s.lower, 2), cls: 'bound' }],
        }));
      } else {
        llr.removeAttribute('data-llr');
        llr.textContent = '';
      }

      if (show('sec-referee', Array.isArray(r.referee_losses))) {
        fill($('referee'), r.referee_losses.length ? r.referee_losses.map((x) => tv.el('li', null,
          link(tv.gameURL(id, x.game), 'game ' + x.game), ': ', tv.el('b', null, x.loser), ' lost by ',
          x.termination, ' after ', tv.int(x.plies), ' plies')) : tv.el('li', { class: 'muted' }, 'none'));
      }

      if (show('sec-generations', r.generations && r.generations.length)) {
        // an accepted generation's rung of the ladder: its Elo against gen-0
        for (const g of r.generations) {
          const rung = (r.ladder || []).find((x) => x.gen === g.gen);
          if (rung) Object.assign(g, { elo: rung.elo, lo: rung.lo, hi: rung.hi });
        }
        fill(document.querySelector('#generations tbody'), r.generations.map((g) =>
          tv.el('tr', null, num(g.gen), td(g.outcome || '-', verdictClass(g.outcome) ||
            (g.outcome === 'accepted' ? 'verdict-h1' : g.outcome === 'rejected' ? 'verdict-h0' : null)),
          num(tv.num(g.llr, 2)), num(tv.int(g.pairs)), num(tv.signed(g.elo, 0)),
          num('[' + tv.signed(g.lo, 0) + ', ' + tv.signed(g.hi, 0) + ']'))));
      }

      if (show('sec-params', r.params && r.params.length)) {
        fill($('params'), r.params.map((p) => tv.el('figure', null,
          tv.el('figcaption', null, tv.el('b', null, p.name), ': start ', tv.el('span', { class: 'num' }, tv.short(p.start)),
          ', now ', tv.el('span', { class: 'num' }, tv.short(p.now))),
          tv.lineChart({ points: p.path, xlabel: 'iteration', ylabel: p.name, width: 420, height: 200,
            hlines: [{ y: p.start, label: 'start', cls: 'start' }] }))));
      }

      if (show('sec-stores', r.stores && r.stores.length)) {
        fill($('stores'), r.stores.map((sid) => tv.el('li', null, link(tv.runURL(sid), sid))));
      }
    }

    // The games table: re-rendered only when the count or a filter changes.
    const fEngine = $('filter-engine'), fResult = $('filter-result'), fTerm = $('filter-termination');
    let games = [], lastKey = null;

    // Give a <select> the options "all" + values, keeping its selection.
    function setOptions(sel, values) {
      const want = [''].concat(values);
      const have = Array.from(sel.options, (o) => o.value);
      if (want.join('\n') === have.join('\n')) return;
      const cur = sel.value;
      fill(sel, want.map((v) => tv.el('option', { value: v }, v === '' ? 'all' : v)));
      sel.value = want.includes(cur) ? cur : '';
    }

    function renderGames(force) {
      const key = [games.length, fEngine.value, fResult.value, fTerm.value].join('\u0001');
      if (!force && key === lastKey) return;
      lastKey = key;
      const e = fEngine.value, res = fResult.value, term = fTerm.value;
      const frag = document.createDocumentFragment();
      let shown = 0;
      for (const g of games) {
        if (e && g.white !== e && g.black !== e) continue;
        if (res && g.result !== res) continue;
        if (term && g.termination !== term) continue;
        shown++;
        frag.appendChild(tv.el('tr', { 'data-game': g.index },
          num(link(tv.gameURL(id, g.index), String(g.index))), td(g.white), td(g.black),
          td(g.result, 'mono'), td(g.termination), num(tv.int(g.plies)), num(tv.num(g.seconds, 1))));
      }
      fill(document.querySelector('#games tbody'), frag);
      $('games-count').textContent = shown + ' of ' + games.length + ' games';
    }

    function updateGames(data) {
      games = (data && data.games) || [];
      const engines = new Set(), terms = new Set();
      for (const g of games) { engines.add(g.white); engines.add(g.black); terms.add(g.termination); }
      const sorted = (s) => Array.from(s).filter((v) => !none(v)).map(String).sort();
      setOptions(fEngine, sorted(engines));
      setOptions(fTerm, sorted(terms));
      renderGames(false);
    }

    for (const sel of [fEngine, fResult, fTerm]) sel.addEventListener('change', () => renderGames(false));

    // a train or SPSA folder has no games of its own (its stores, linked, do)
    tv.poll(() => tv.fetchJSON('/api/run' + q).then((r) => {
      renderRun(r);
      const store = r.kind === 'tournament';
      $('sec-games').hidden = !store;
      return store ? tv.fetchJSON('/api/games' + q).then(updateGames) : null;
    }));
  };

  /* ---------- game viewer ---------- */

  const SQ = 60, MARGIN = 22; // square size and the margin for coordinates
  const FILES = 'abcdefgh';

  /* A TFEN token (docs/rules.md section 12) -> what to draw:
   * "PQ" unpromoted combatant with destiny Q, "PQ'" one that has moved,
   * "Q~" promoted combatant, "K" (or "W") Wizard, "H" Helgi; lower case Black. */
  tv.parseToken = function (tok) {
    const t = String(tok);
    const white = t[0] !== t[0].toLowerCase();
    const core = t.toUpperCase().replace(/'/g, '');
    const p = { tok: t, white: white, moved: t.indexOf("'") >= 0, promoted: core.indexOf('~') >= 0 };
    if (core[0] === 'P' && core.length >= 2 && /[A-Z]/.test(core[1])) {
      p.letter = 'P'; p.destiny = core[1];
    } else {
      p.letter = core[0] || '?';
    }
    p.helgi = p.letter === 'H' || p.destiny === 'H';
    p.wizard = p.letter === 'K' || p.letter === 'W';
    return p;
  };

  // The top tavrel of a square: a disc with its letter and its marks.
  function drawPiece(g, p, cx, cy, r) {
    const side = p.white ? 'w' : 'b', on = p.white ? 'on-w' : 'on-b';
    g.append(tv.svg('circle', { class: 'pc ' + side + (p.letter === 'H' ? ' helgi' : '') +
      (p.wizard ? ' wizard' : ''), cx: cx, cy: cy, r: r }));
    if (p.destiny === 'H') g.append(tv.svg('circle', { class: 'ring', cx: cx, cy: cy, r: r * 0.8 }));
    const lx = p.destiny || p.promoted ? cx - r * 0.15 : cx;
    g.append(tv.svg('text', { class: 'letter ' + on + (p.letter === 'H' ? ' gold' : ''), x: lx, y: cy,
      'font-size': r * 1.1 }, p.letter));
    if (p.destiny) {
      g.append(tv.svg('text', { class: 'sub ' + on + (p.destiny === 'H' ? ' gold' : ''), x: cx + r * 0.45,
        y: cy + r * 0.42, 'font-size': r * 0.6 }, p.destiny));
    }
    if (p.promoted) {
      g.append(tv.svg('text', { class: 'sub ' + on, x: cx + r * 0.58, y: cy - r * 0.5,
        'font-size': r * 0.75 }, '~'));
    }
    if (p.moved) g.append(tv.svg('circle', { class: 'dotmark', cx: cx - r * 0.62, cy: cy + r * 0.62, r: r * 0.16 }));
  }

  // Draw a square's stack (tokens top first) into its <g>, after its <rect>.
  function drawStack(g, tokens) {
    while (g.childNodes.length > 1) g.removeChild(g.lastChild);
    g.setAttribute('data-stack', tokens.join(','));
    if (!tokens.length) return;
    g.append(tv.svg('title', null, g.getAttribute('data-square') + ': ' + tokens.join(' ') +
      (tokens.length > 1 ? ' (top first)' : '')));
    const parsed = tokens.map(tv.parseToken);
    if (parsed.length === 1) { drawPiece(g, parsed[0], SQ / 2, SQ / 2, 21); return; }
    drawPiece(g, parsed[0], 19, 36, 15);
    g.append(tv.svg('text', { class: 'height', x: 2.5, y: 10 }, parsed.length));
    // The tavrels under the top one: a column of chips, top first, each
    // labelled with its token (in upper case, the fill gives the colour).
    const below = parsed.slice(1), h = Math.min(13, 56 / below.length);
    below.forEach((p, i) => {
      const y = 2 + i * h;
      g.append(tv.svg('rect', { class: 'chip ' + (p.white ? 'w' : 'b') + (p.helgi ? ' helgi' : ''),
        x: 36.5, y: y, width: 22, height: Math.max(1, h - (h > 4 ? 1.2 : 0.4)), rx: h > 4 ? 2 : 0.5 }));
      if (h >= 9) {
        g.append(tv.svg('text', { class: 'chiplabel ' + (p.white ? 'on-w' : 'on-b'), x: 47.5, y: y + h / 2 - 0.5 },
          p.tok.toUpperCase()));
      }
    });
  }

  // Build the 64 squares and the coordinates; returns {name: <g>}.
  function buildBoard(svg) {
    const size = 8 * SQ + 2 * MARGIN, squares = {};
    svg.setAttribute('viewBox', `0 0 ${size} ${size}`);
    for (let r = 7; r >= 0; r--) {
      for (let f = 0; f < 8; f++) {
        const name = FILES[f] + (r + 1);
        const g = tv.svg('g', { 'data-square': name, 'data-stack': '',
          transform: `translate(${MARGIN + f * SQ},${MARGIN + (7 - r) * SQ})` },
        tv.svg('rect', { class: 'sq ' + ((f + r) % 2 ? 'light' : 'dark'), width: SQ, height: SQ }));
        svg.append(g);
        squares[name] = g;
      }
    }
    for (let i = 0; i < 8; i++) {
      const c = MARGIN + i * SQ + SQ / 2;
      for (const y of [MARGIN / 2, size - MARGIN / 2]) svg.append(tv.svg('text', { class: 'coord', x: c, y: y }, FILES[i]));
      for (const x of [MARGIN / 2, size - MARGIN / 2]) svg.append(tv.svg('text', { class: 'coord', x: x, y: c }, 8 - i));
    }
    return squares;
  }

  // The from and to squares of a move ("e2-e4", "c8(1)-f5", "e1xe8+", "0-0").
  tv.moveSquares = function (move, mover) {
    if (!move) return [];
    const sq = String(move).match(/[a-h][1-8]/g);
    if (sq && sq.length >= 2) return sq.slice(0, 2);
    const rank = mover === 'b' ? '8' : '1';
    if (/^[0O]-[0O]-[0O]/.test(move)) return ['e' + rank, 'c' + rank];
    if (/^[0O]-[0O]/.test(move)) return ['e' + rank, 'g' + rank];
    return [];
  };

  tv.gamePage = function () {
    const id = tv.param('run') || '', index = tv.param('game') || '0';
    $('run-link').href = tv.runURL(id);
    $('run-link').textContent = 'run ' + id;
    const squares = buildBoard($('board'));
    let plies = [], cur = 0, moveEls = [];

    function info(p) {
      const items = [
        ['move', p.move], ['mover', p.mover === 'w' ? 'White' : p.mover === 'b' ? 'Black' : null],
        ['score', none(p.score) ? null : tv.signed(p.score) + ' cp'], ['depth', p.depth],
        ['nodes', none(p.nodes) ? null : tv.int(p.nodes)], ['time_ms', p.time_ms],
        ['clock_ms', none(p.clock_ms) ? null : tv.int(p.clock_ms)],
      ];
      fill($('info'), items.map(([k, v]) => [tv.el('dt', null, k), tv.el('dd', null, none(v) ? '-' : v)]));
    }

    // Show ply k: board, highlights, counters, TFEN, search figures, URL.
    function go(k) {
      if (!plies.length) return;
      cur = Math.max(0, Math.min(plies.length - 1, k));
      const p = plies[cur], board = p.board || {};
      for (const name in squares) {
        drawStack(squares[name], (board[name] || []).map(String));
        squares[name].classList.remove('last');
      }
      for (const s of tv.moveSquares(p.move, p.mover)) if (squares[s]) squares[s].classList.add('last');
      $('ply').setAttribute('data-ply', cur);
      $('ply').textContent = 'ply ' + cur + ' of ' + (plies.length - 1);
      $('tfen').textContent = p.tfen || '';
      info(p);
      moveEls.forEach((el, i) => el && el.classList.toggle('cur', i === cur));
      const el = moveEls[cur], box = $('moves');
      if (el) { // keep the current move visible inside the list, not scrolling the page
        if (el.offsetTop < box.scrollTop) box.scrollTop = el.offsetTop - 4;
        else if (el.offsetTop + el.offsetHeight > box.scrollTop + box.clientHeight) {
          box.scrollTop = el.offsetTop + el.offsetHeight - box.clientHeight + 4;
        }
      }
      const u = new URL(location.href);
      u.searchParams.set('ply', cur);
      history.replaceState(null, '', u.pathname + u.search);
    }

    // ol#moves: one <li> per move number, White's move then Black's.
    function buildMoves() {
      const ol = $('moves');
      moveEls = [];
      const startTfen = (plies[0] && plies[0].tfen || '').split(' ');
      let number = parseInt(startTfen[5], 10) || 1, li = null;
      for (let k = 1; k < plies.length; k++) {
        const p = plies[k], black = p.mover ? p.mover === 'b' : (k % 2 === 0);
        if (!li || !black) {
          li = tv.el('li', null, tv.el('span', { class: 'n' }, number + '.'));
          ol.append(li);
          if (black) li.append(tv.el('span', { class: 'muted' }, '…'));
        }
        const mv = tv.el('span', { class: 'mv', 'data-ply': k, title: 'ply ' + k }, p.move || '?');
        mv.addEventListener('click', () => go(k));
        li.append(mv);
        moveEls[k] = mv;
        if (black) { li = null; number++; }
      }
      if (plies.length <= 1) ol.append(tv.el('li', { class: 'muted' }, 'no moves'));
    }

    $('first').addEventListener('click', () => go(0));
    $('prev').addEventListener('click', () => go(cur - 1));
    $('next').addEventListener('click', () => go(cur + 1));
    $('last').addEventListener('click', () => go(plies.length - 1));
    document.addEventListener('keydown', (e) => {
      if (e.altKey || e.ctrlKey || e.metaKey || /^(INPUT|SELECT|TEXTAREA)$/.test(e.target.tagName)) return;
      const to = { ArrowLeft: cur - 1, ArrowRight: cur + 1, Home: 0, End: plies.length - 1 }[e.key];
      if (to === undefined) return;
      e.preventDefault();
      go(to);
    });

    tv.fetchJSON('/api/game?run=' + encodeURIComponent(id) + '&game=' + encodeURIComponent(index))
      .then((g) => {
        plies = g.plies || [];
        document.title = g.white + ' vs ' + g.black + ' - game ' + g.index + ' - tavreli';
        $('title').textContent = g.white + ' vs ' + g.black;
        fill($('header'), 'game ' + g.index + ' · ', tv.el('span', { class: 'mono' }, g.result || '*'),
          ' · ' + (g.termination || '-'));
        if (g.tgn) $('tgn-link').href = g.tgn;
        buildMoves();
        go(parseInt(tv.param('ply'), 10) || 0);
        tv.status(null);
      }, (e) => tv.status(e, true));
  };

  window.tv = tv;
}());
