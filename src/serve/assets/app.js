// xqdb explorer: the board (SVG), the moves played, and the panels fed by the JSON API
// (/api/position, /api/tablebase, /api/book, /api/analyse). No framework, no build step.
'use strict';

(() => {
  const S = 60;            // distance between points
  const MX = 46, MY = 62;  // margins (labels live there)
  const W = 8 * S + 2 * MX, H = 9 * S + 2 * MY;
  const NS = 'http://www.w3.org/2000/svg';
  const START = 'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1';
  const FILES = 'abcdefghi';
  const CHARS = {
    K: '帥', A: '仕', B: '相', N: '傌', R: '俥', C: '炮', P: '兵',
    k: '將', a: '士', b: '象', n: '馬', r: '車', c: '砲', p: '卒',
  };
  const RED_NUMS = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];
  const BLACK_NUMS = ['１', '２', '３', '４', '５', '６', '７', '８', '９'];

  const $ = (id) => document.getElementById(id);
  const svg = $('board');
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);

  // ---- state ----
  let hist = [];          // [{fen, move: {uci, iccs, chinese} | null}]
  let cur = 0;
  let flipped = false;
  let pos = null;         // /api/position answer of hist[cur]
  let selected = null;    // square name of the selected piece
  let drag = null;        // {from, el, moved, x0, y0}
  let generation = 0;     // answers for an older position are dropped
  let analysis = null;    // AbortController of the running analysis
  let serverInfo = null;

  // ---- helpers ----
  function el(tag, attrs, text) {
    const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function h(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'class') e.className = v; else if (k.startsWith('data-')) e.setAttribute(k, v); else e[k] = v;
    }
    for (const c of children) if (c !== null && c !== undefined) e.append(c);
    return e;
  }
  const sqName = (f, r) => FILES[f] + r;
  const fileOf = (sq) => FILES.indexOf(sq[0]);
  const rankOf = (sq) => Number(sq[1]);
  const px = (f) => MX + (flipped ? 8 - f : f) * S;
  const py = (r) => MY + (flipped ? r : 9 - r) * S;
  const fmtInt = (n) => n.toLocaleString('en-US');
  function fmtNodes(n) {
    if (n >= 1e9) return (n / 1e9).toFixed(1) + 'G';
    if (n >= 1e6) return (n / 1e6).toFixed(1) + 'M';
    if (n >= 1e3) return (n / 1e3).toFixed(0) + 'k';
    return String(n);
  }

  // Board of a FEN: {board: {sq: letter}, turn: 'w'|'b'} (the server has validated it).
  function parseFen(fen) {
    const [placement, side] = fen.trim().split(/\s+/);
    const board = {};
    placement.split('/').forEach((row, i) => {
      const r = 9 - i;
      let f = 0;
      for (const ch of row) {
        if (/[0-9]/.test(ch)) { f += Number(ch); continue; }
        const letter = ch === 'E' ? 'B' : ch === 'e' ? 'b' : ch === 'H' ? 'N' : ch === 'h' ? 'n' : ch;
        board[sqName(f, r)] = letter;
        f += 1;
      }
    });
    return { board, turn: side === 'b' ? 'b' : 'w' };
  }
  const isRed = (letter) => letter === letter.toUpperCase();

  async function api(path, fen, extra) {
    const q = new URLSearchParams({ fen, ...(extra || {}) });
    try {
      const r = await fetch(`${path}?${q}`);
      const body = await r.json();
      return { ok: r.ok, status: r.status, body };
    } catch (e) {
      return { ok: false, status: 0, body: { error: `no answer from the server (${e.message})` } };
    }
  }

  // ---- the board ----
  function drawGrid(g) {
    g.append(el('rect', { class: 'board-bg', x: MX - 24, y: MY - 24, width: 8 * S + 48, height: 9 * S + 48, rx: 6 }));
    const grid = el('g', { class: 'grid' });
    for (let r = 0; r <= 9; r++) {
      grid.append(el('line', { x1: MX, y1: MY + r * S, x2: MX + 8 * S, y2: MY + r * S, class: r === 0 || r === 9 ? 'edge' : '' }));
    }
    for (let f = 0; f <= 8; f++) {
      const x = MX + f * S;
      if (f === 0 || f === 8) {
        grid.append(el('line', { x1: x, y1: MY, x2: x, y2: MY + 9 * S, class: 'edge' }));
      } else {
        grid.append(el('line', { x1: x, y1: MY, x2: x, y2: MY + 4 * S }));
        grid.append(el('line', { x1: x, y1: MY + 5 * S, x2: x, y2: MY + 9 * S }));
      }
    }
    for (const top of [0, 7]) {
      const y0 = MY + top * S, y2 = MY + (top + 2) * S;
      grid.append(el('line', { x1: MX + 3 * S, y1: y0, x2: MX + 5 * S, y2 }));
      grid.append(el('line', { x1: MX + 5 * S, y1: y0, x2: MX + 3 * S, y2 }));
    }
    g.append(grid);
    const ry = MY + 4.5 * S;
    g.append(el('text', { class: 'river', x: MX + 2 * S, y: ry, 'text-anchor': 'middle', 'dominant-baseline': 'central' }, '楚 河'));
    g.append(el('text', { class: 'river', x: MX + 6 * S, y: ry, 'text-anchor': 'middle', 'dominant-baseline': 'central' }, '漢 界'));
    // file numbers as each side counts them (from its own right), ICCS letters and ranks
    for (let f = 0; f <= 8; f++) {
      const x = px(f);
      const redNum = RED_NUMS[8 - f], blackNum = BLACK_NUMS[f];
      g.append(el('text', { class: 'label', x, y: 20, 'text-anchor': 'middle' }, flipped ? redNum : blackNum));
      g.append(el('text', { class: 'label', x, y: H - 22, 'text-anchor': 'middle' }, flipped ? blackNum : redNum));
      g.append(el('text', { class: 'label small', x, y: H - 6, 'text-anchor': 'middle' }, FILES[f]));
    }
    for (let r = 0; r <= 9; r++) {
      g.append(el('text', { class: 'label small', x: 12, y: py(r), 'dominant-baseline': 'central', 'text-anchor': 'middle' }, String(r)));
    }
  }

  function movesFrom(sq) {
    return pos ? pos.moves.filter((m) => m.uci.startsWith(sq)) : [];
  }

  function drawBoard() {
    svg.textContent = '';
    drawGrid(svg);
    const { board, turn } = parseFen(hist[cur].fen);
    const marks = el('g', { class: 'marks' });
    const last = hist[cur].move;
    if (last) {
      const from = last.uci.slice(0, 2), to = last.uci.slice(2, 4);
      marks.append(el('circle', { class: 'mark-from', cx: px(fileOf(from)), cy: py(rankOf(from)), r: 27 }));
      marks.append(el('circle', { class: 'mark-to', cx: px(fileOf(to)), cy: py(rankOf(to)), r: 31 }));
    }
    if (pos && pos.check) {
      const king = Object.keys(board).find((sq) => board[sq] === (turn === 'w' ? 'K' : 'k'));
      if (king) marks.append(el('circle', { class: 'check-mark', cx: px(fileOf(king)), cy: py(rankOf(king)), r: 33 }));
    }
    svg.append(marks);
    const pieces = el('g', { class: 'pieces' });
    for (const [sq, letter] of Object.entries(board)) {
      const red = isRed(letter);
      const mover = pos && (red === (turn === 'w')) && movesFrom(sq).length > 0;
      const cls = ['piece', red ? 'red' : 'black'];
      if (mover) cls.push('mover');
      if (sq === selected) cls.push('selected');
      const g = el('g', { class: cls.join(' '), 'data-sq': sq, transform: `translate(${px(fileOf(sq))},${py(rankOf(sq))})` });
      g.append(el('circle', { class: 'outer', r: 27 }));
      g.append(el('circle', { class: 'inner', r: 23 }));
      g.append(el('text', { 'text-anchor': 'middle', 'dominant-baseline': 'central', y: 1 }, CHARS[letter] || '?'));
      pieces.append(g);
    }
    svg.append(pieces);
    if (selected) {
      const dests = el('g', { class: 'dests' });
      for (const m of movesFrom(selected)) {
        const to = m.uci.slice(2, 4);
        const g = el('g', { class: 'dest', 'data-sq': to, 'data-uci': m.uci, transform: `translate(${px(fileOf(to))},${py(rankOf(to))})` });
        g.append(el('circle', { class: 'hit', r: 28 }));
        g.append(board[to] ? el('circle', { class: 'ring', r: 28 }) : el('circle', { class: 'dot', r: 8 }));
        dests.append(g);
      }
      svg.append(dests);
    }
  }

  function pointAt(evt) {
    const p = svg.createSVGPoint();
    p.x = evt.clientX; p.y = evt.clientY;
    const q = p.matrixTransform(svg.getScreenCTM().inverse());
    return q;
  }
  function squareAt(q) {
    const fx = Math.round((q.x - MX) / S), ry = Math.round((q.y - MY) / S);
    if (fx < 0 || fx > 8 || ry < 0 || ry > 9) return null;
    if (Math.hypot(q.x - (MX + fx * S), q.y - (MY + ry * S)) > S * 0.48) return null;
    const f = flipped ? 8 - fx : fx, r = flipped ? ry : 9 - ry;
    return sqName(f, r);
  }

  svg.addEventListener('pointerdown', (evt) => {
    if (!pos || evt.button !== 0) return;
    const q = pointAt(evt);
    const sq = squareAt(q);
    if (!sq) { selected = null; drawBoard(); return; }
    if (selected) {
      const m = pos.moves.find((mv) => mv.uci === selected + sq);
      if (m) { evt.preventDefault(); play(m); return; }
    }
    if (movesFrom(sq).length > 0) {
      evt.preventDefault();
      selected = sq;
      drawBoard();
      const pieceEl = svg.querySelector(`.piece[data-sq="${sq}"]`);
      if (pieceEl) {
        pieceEl.parentNode.append(pieceEl); // on top while dragged
        drag = { from: sq, el: pieceEl, moved: false, x0: q.x, y0: q.y };
        svg.setPointerCapture(evt.pointerId);
      }
    } else {
      selected = null;
      drawBoard();
    }
  });
  svg.addEventListener('pointermove', (evt) => {
    if (!drag) return;
    const q = pointAt(evt);
    if (!drag.moved && Math.hypot(q.x - drag.x0, q.y - drag.y0) < 6) return;
    drag.moved = true;
    drag.el.classList.add('dragging');
    drag.el.setAttribute('transform', `translate(${q.x},${q.y})`);
  });
  function endDrag(evt, cancelled) {
    if (!drag) return;
    const d = drag;
    drag = null;
    if (svg.hasPointerCapture(evt.pointerId)) svg.releasePointerCapture(evt.pointerId);
    if (!d.moved) return; // a click: the piece stays selected, its moves shown
    const sq = cancelled ? null : squareAt(pointAt(evt));
    const m = sq && pos.moves.find((mv) => mv.uci === d.from + sq);
    if (m) play(m); else drawBoard();
  }
  svg.addEventListener('pointerup', (evt) => endDrag(evt, false));
  svg.addEventListener('pointercancel', (evt) => endDrag(evt, true));

  // ---- moves and history ----
  function play(m) {
    const names = { uci: m.uci, iccs: m.iccs, chinese: m.chinese };
    const next = hist[cur + 1];
    if (next && next.move && next.move.uci === m.uci) {
      cur += 1;
    } else {
      hist = hist.slice(0, cur + 1);
      hist.push({ fen: m.fen, move: names });
      cur = hist.length - 1;
    }
    load();
  }
  function playUci(uci) {
    const m = pos && pos.moves.find((mv) => mv.uci === uci);
    if (m) play(m);
  }
  function go(i) {
    if (i < 0 || i >= hist.length || i === cur) return;
    cur = i;
    load();
  }

  function drawHistory() {
    const ol = $('history');
    ol.textContent = '';
    const startRed = parseFen(hist[0].fen).turn === 'w';
    const first = h('li', { class: cur === 0 ? 'current' : '', title: hist[0].fen }, 'start');
    first.addEventListener('click', () => go(0));
    ol.append(first);
    for (let i = 1; i < hist.length; i++) {
      const m = hist[i].move;
      const ply = i - 1 + (startRed ? 0 : 1);
      const num = ply % 2 === 0 ? `${ply / 2 + 1}.` : (i === 1 ? `${(ply - 1) / 2 + 1}…` : '');
      const li = h('li', { class: i === cur ? 'current' : '', title: m.iccs, 'data-ply': String(i) },
        num ? h('span', { class: 'n' }, num) : null, h('span', { class: 'zh' }, m.chinese));
      li.addEventListener('click', () => go(i));
      ol.append(li);
    }
    $('first').disabled = $('back').disabled = cur === 0;
    $('forward').disabled = $('last').disabled = cur === hist.length - 1;
  }

  // ---- panels ----
  const side = (turn) => (turn === 'red' ? 'Red' : 'Black');
  const other = (turn) => (turn === 'red' ? 'Black' : 'Red');

  function drawStatus() {
    const st = $('status');
    st.textContent = '';
    if (!pos) return;
    const who = h('span', { class: pos.turn === 'red' ? 'red' : '' }, side(pos.turn));
    if (pos.checkmate) st.append(who, ` is checkmated: ${other(pos.turn)} wins`);
    else if (pos.stalemate) st.append(who, ` has no legal move: ${other(pos.turn)} wins`);
    else st.append(who, pos.check ? ' to move, in check' : ' to move');
  }

  // Result of a move for its mover, from the category of the position after it.
  const MOVER = {
    loss: ['Win', 'win'], 'loss-by-rule': ['Win', 'win', true],
    win: ['Loss', 'loss'], 'win-by-rule': ['Loss', 'loss', true],
    draw: ['Draw', 'draw'],
  };
  const VIOLATION = { 'perpetual-check': 'perpetual check', 'perpetual-chase': 'perpetual chase' };

  function drawTablebase(r) {
    const v = $('tb-verdict');
    const facts = $('tb-facts');
    const body = $('tb-moves').querySelector('tbody');
    v.textContent = ''; facts.textContent = ''; body.textContent = '';
    if (!r.ok) {
      v.dataset.category = 'none';
      v.textContent = r.status === 404 ? `Not in the tablebases: ${r.body.error}.` : `Tablebase error: ${r.body.error}`;
      $('tb-moves').hidden = true;
      return;
    }
    const t = r.body;
    v.dataset.category = t.category;
    v.dataset.dtm = t.dtm === null ? '' : String(t.dtm);
    const who = side(pos.turn);
    const plies = t.dtm === null ? null : Math.abs(t.dtm);
    const moves = plies === null ? '' : ` (${Math.ceil(plies / 2)} move${Math.ceil(plies / 2) === 1 ? '' : 's'})`;
    let text;
    switch (t.category) {
      case 'win': text = `${who} wins: mate in ${plies} plies${moves}`; break;
      case 'win-by-rule': text = `${who} wins by rule in ${plies} plies${moves}`; break;
      case 'loss': text = plies === 0 ? `${who} has lost` : `${who} loses: mated in ${plies} plies${moves}`; break;
      case 'loss-by-rule': text = `${who} loses by rule in ${plies} plies${moves}`; break;
      default: text = 'Draw with best play';
    }
    const cls = t.category.startsWith('win') ? 'win' : t.category.startsWith('loss') ? 'loss' : 'draw';
    v.append(h('span', { class: cls }, text));
    const fact = (k, val) => facts.append(h('div', {}, h('dt', {}, k), h('dd', {}, val)));
    fact('WDL', t.category);
    fact('DTM', t.dtm === null ? '—' : String(t.dtm));
    fact('DTC', t.dtc === null ? '—' : String(t.dtc));
    fact('Rules', t.rules === 'check-chase' ? 'perpetual check and chase lose' : 'every repetition draws');
    if (t.rule) {
      const violator = t.rule.violator === 'red' ? 'Red' : 'Black';
      fact('Rule', `decided by ${violator}'s ${VIOLATION[t.rule.violation]}: ${violator} must deviate`);
    }
    $('tb-moves').hidden = t.moves.length === 0;
    for (const m of t.moves) {
      const [word, cls, byRule] = MOVER[m.category];
      const result = h('td', { class: cls }, word);
      if (byRule) result.append(h('span', { class: 'badge' }, 'by rule'));
      if (m.forbidden) result.append(h('span', { class: 'badge bad', title: 'the rules forbid this move here' }, `forbidden: ${VIOLATION[m.forbidden]}`));
      if (m.checkmate) result.append(h('span', { class: 'badge' }, 'mate'));
      const dtm = m.dtm === null ? '—' : String(Math.abs(m.dtm) + 1);
      const tr = h('tr', { 'data-uci': m.uci, 'data-category': m.category, title: `play ${m.iccs}` },
        h('td', { class: 'zh' }, m.chinese), h('td', { class: 'iccs' }, m.iccs), result,
        h('td', { class: 'mono' }, dtm), h('td', { class: 'mono' }, m.dtc === null ? '—' : String(m.dtc)));
      tr.addEventListener('click', () => playUci(m.uci));
      body.append(tr);
    }
  }

  function drawBook(r) {
    const sum = $('book-summary');
    const body = $('book-moves').querySelector('tbody');
    sum.textContent = ''; body.textContent = '';
    if (!r.ok) {
      sum.textContent = r.status === 404 ? 'No opening book on this server.' : `Book error: ${r.body.error}`;
      $('book-moves').hidden = true;
      return;
    }
    const b = r.body;
    $('book-moves').hidden = b.moves.length === 0;
    sum.textContent = b.moves.length === 0 ? 'Position not in the book.' : `${fmtInt(b.games)} games from this position.`;
    for (const m of b.moves) {
      const known = m.wins + m.draws + m.losses;
      const pct = (n) => (known ? (100 * n) / known : 0);
      const bar = h('div', { class: 'wdl', title: `won ${m.wins}, drawn ${m.draws}, lost ${m.losses} (by the mover)` });
      for (const [n, c] of [[m.wins, 'w'], [m.draws, 'd'], [m.losses, 'l']]) {
        const s = h('span', { class: c }, pct(n) >= 12 ? `${Math.round(pct(n))}%` : '');
        s.style.width = `${pct(n)}%`;
        bar.append(s);
      }
      const tr = h('tr', { 'data-uci': m.uci, title: `play ${m.iccs}` },
        h('td', { class: 'zh' }, m.chinese), h('td', { class: 'iccs' }, m.iccs),
        h('td', { class: 'mono' }, fmtInt(m.games)), h('td', {}, bar),
        h('td', { class: 'mono' }, m.score === null ? '—' : `${m.score.toFixed(1)}%`));
      tr.addEventListener('click', () => playUci(m.uci));
      body.append(tr);
    }
  }

  // ---- engine analysis (server-sent events read from a streamed fetch) ----
  function stopAnalysis() {
    if (analysis) { analysis.abort(); analysis = null; }
    $('analyse').disabled = false;
    $('stop').disabled = true;
  }
  function fmtScore(s) {
    if (s.mate !== undefined) return s.mate > 0 ? `#${s.mate}` : `#-${Math.abs(s.mate)}`;
    // the engine scores a tablebase result far above any evaluation, below mates
    if (Math.abs(s.cp) >= 10000) return s.cp > 0 ? 'TB win' : 'TB loss';
    const v = s.cp / 100;
    return (v > 0 ? '+' : '') + v.toFixed(2);
  }
  async function analyse() {
    stopAnalysis();
    const fen = hist[cur].fen;
    const mine = generation;
    const ctl = new AbortController();
    analysis = ctl;
    $('analyse').disabled = true;
    $('stop').disabled = false;
    const status = $('engine-status');
    const body = $('engine-lines').querySelector('tbody');
    body.textContent = '';
    status.textContent = 'Starting…';
    const q = new URLSearchParams({ fen, movetime: $('movetime').value });
    let r;
    try {
      r = await fetch(`/api/analyse?${q}`, { signal: ctl.signal });
    } catch (e) {
      if (analysis === ctl) { status.textContent = `No answer from the server (${e.message}).`; stopAnalysis(); }
      return;
    }
    if (!r.ok) {
      let msg = `error ${r.status}`;
      try { msg = (await r.json()).error; } catch (_) { /* keep the status */ }
      if (analysis === ctl) { status.textContent = `Analysis refused: ${msg}`; stopAnalysis(); }
      return;
    }
    const reader = r.body.getReader();
    const dec = new TextDecoder();
    let buf = '';
    const handle = (name, data) => {
      if (mine !== generation) return;
      if (name === 'start') {
        status.textContent = `Analysing for ${(data.movetime / 1000).toFixed(1)} s…`;
      } else if (name === 'info') {
        const tr = h('tr', { 'data-depth': String(data.depth) },
          h('td', { class: 'mono' }, `${data.depth}/${data.seldepth}`),
          h('td', { class: 'mono' }, fmtScore(data.score)),
          h('td', { class: 'mono', title: `${fmtInt(data.nodes)} nodes, ${fmtInt(data.nps)} nodes/s` }, fmtNodes(data.nodes)),
          h('td', { class: 'zh', title: data.pv_iccs.join(' ') }, data.pv_chinese.slice(0, 10).join(' ')));
        body.prepend(tr);
        while (body.children.length > 12) body.lastChild.remove();
        status.textContent = `Depth ${data.depth}, ${fmtNodes(data.nps)} nodes/s, ${(data.time / 1000).toFixed(1)} s`;
      } else if (name === 'bestmove') {
        status.textContent = data.uci ? `Best move: ${data.chinese} (${data.iccs})` : 'No legal move.';
        status.dataset.best = data.uci || '';
      }
    };
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buf += dec.decode(value, { stream: true });
        let cut;
        while ((cut = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, cut);
          buf = buf.slice(cut + 2);
          let name = 'message', data = '';
          for (const line of block.split('\n')) {
            if (line.startsWith('event:')) name = line.slice(6).trim();
            else if (line.startsWith('data:')) data += line.slice(5).trim();
          }
          if (data) handle(name, JSON.parse(data));
        }
      }
    } catch (e) {
      if (e.name !== 'AbortError' && analysis === ctl) status.textContent = `Analysis ended: ${e.message}`;
    }
    if (analysis === ctl) { analysis = null; $('analyse').disabled = false; $('stop').disabled = true; }
  }

  // ---- loading a position ----
  async function load() {
    const mine = ++generation;
    stopAnalysis();
    selected = null;
    const fen = hist[cur].fen;
    $('fen').value = fen;
    $('fen-error').textContent = '';
    const url = new URL(window.location.href);
    url.searchParams.set('fen', fen);
    window.history.replaceState(null, '', url);
    $('engine-lines').querySelector('tbody').textContent = '';
    $('engine-status').textContent = 'Press Analyse to search this position.';
    delete $('engine-status').dataset.best;
    drawHistory();
    const [p, tb, bk] = await Promise.all([
      api('/api/position', fen), api('/api/tablebase', fen), api('/api/book', fen),
    ]);
    if (mine !== generation) return;
    if (!p.ok) { $('fen-error').textContent = p.body.error; return; }
    pos = p.body;
    drawBoard();
    drawStatus();
    drawTablebase(tb);
    drawBook(bk);
    document.body.dataset.loaded = fen;
  }

  async function setFen(text) {
    const fen = text.trim() || START;
    const p = await api('/api/position', fen);
    if (!p.ok) { $('fen-error').textContent = p.body.error; return; }
    hist = [{ fen: p.body.fen, move: null }];
    cur = 0;
    pos = null;
    load();
  }

  // ---- controls ----
  $('first').addEventListener('click', () => go(0));
  $('back').addEventListener('click', () => go(cur - 1));
  $('forward').addEventListener('click', () => go(cur + 1));
  $('last').addEventListener('click', () => go(hist.length - 1));
  $('flip').addEventListener('click', () => { flipped = !flipped; drawBoard(); });
  $('start').addEventListener('click', () => setFen(START));
  $('fen-set').addEventListener('click', () => setFen($('fen').value));
  $('fen').addEventListener('keydown', (e) => { if (e.key === 'Enter') setFen($('fen').value); });
  $('analyse').addEventListener('click', analyse);
  $('stop').addEventListener('click', () => { stopAnalysis(); $('engine-status').textContent = 'Stopped.'; });
  document.addEventListener('keydown', (e) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
    if (e.key === 'ArrowLeft') go(cur - 1);
    else if (e.key === 'ArrowRight') go(cur + 1);
    else if (e.key === 'Home') go(0);
    else if (e.key === 'End') go(hist.length - 1);
    else if (e.key === 'f') { flipped = !flipped; drawBoard(); }
  });

  async function start() {
    try {
      const r = await fetch('/api/info');
      serverInfo = await r.json();
    } catch (_) { serverInfo = null; }
    const times = [1000, 2000, 3000, 5000, 10000, 30000];
    const sel = $('movetime');
    const max = serverInfo ? serverInfo.analysis.max_movetime : 3000;
    const def = serverInfo ? serverInfo.analysis.default_movetime : 3000;
    for (const t of times.filter((t) => t <= max).concat(times.includes(max) ? [] : [max])) {
      sel.append(h('option', { value: String(t), selected: t === def }, `${t / 1000} s`));
    }
    if (serverInfo) {
      const book = serverInfo.book ? `book of ${fmtInt(serverInfo.book.positions)} positions` : 'no book';
      $('server-info').textContent = `xqdb ${serverInfo.version} · ${serverInfo.tables.length} tables · ${book} · analysis up to ${max / 1000} s`;
    }
    const given = new URL(window.location.href).searchParams.get('fen');
    await setFen(given || START);
  }
  start();
})();
