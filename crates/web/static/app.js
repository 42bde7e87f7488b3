// alphazero-rs web page: talks to the JSON API (crates/web/API.md), keeps only the session id.
"use strict";

const $ = (id) => document.getElementById(id);
let session = null;
let state = null;
let busy = false;
let selected = null; // xiangqi: the square name of the selected piece

const XQ_NAMES = {
  K: "帥", A: "仕", B: "相", N: "傌", R: "俥", C: "炮", P: "兵",
  k: "將", a: "士", b: "象", n: "馬", r: "車", c: "砲", p: "卒",
};
const SIDE_LABELS = {
  connect4: { first: "first (red)", second: "second (yellow)" },
  gomoku: { first: "first (black)", second: "second (white)" },
  xiangqi: { first: "first (red)", second: "second (black)" },
};

function setBusy(b, text) {
  busy = b;
  document.body.dataset.busy = b ? "true" : "false";
  if (text) $("status").textContent = text;
  $("undo").disabled = b || !session;
  $("analyse").disabled = b || !session || !state || !!state.outcome;
}

function showError(msg) {
  const e = $("error");
  if (msg) {
    e.textContent = msg;
    e.hidden = false;
  } else {
    e.textContent = "";
    e.hidden = true;
  }
}

async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  let resp;
  try {
    resp = await fetch(path, opts);
  } catch (e) {
    throw new Error("cannot reach the server: " + e.message);
  }
  let data = null;
  try {
    data = await resp.json();
  } catch (e) {
    throw new Error(`server answered ${resp.status} without JSON`);
  }
  if (!resp.ok) {
    const err = new Error(data && data.error ? data.error : `HTTP ${resp.status}`);
    err.status = resp.status;
    throw err;
  }
  return data;
}

function updateOptionVisibility() {
  const game = $("game").value;
  $("gomoku-options").hidden = game !== "gomoku";
  const labels = SIDE_LABELS[game];
  for (const opt of $("side").options) opt.textContent = labels[opt.value];
}

async function newGame(ev) {
  if (ev) ev.preventDefault();
  if (busy) return;
  showError(null);
  const game = $("game").value;
  const body = {
    game,
    human_side: $("side").value,
    simulations: Number($("sims").value),
  };
  if (game === "gomoku") {
    body.size = Number($("size").value);
    body.rule = $("rule").value;
  }
  setBusy(true, "Starting a new game…");
  try {
    const s = await api("POST", "/api/new", body);
    session = s.session;
    try { localStorage.setItem("alphazero-session", session); } catch (e) { /* private mode */ }
    selected = null;
    render(s);
  } catch (e) {
    showError(e.message);
  } finally {
    setBusy(false);
    if (state) render(state);
  }
  await maybeEngine();
}

async function maybeEngine() {
  if (!state || state.outcome || state.human_to_move) return;
  setBusy(true, `Engine (${state.engine_colour}) is thinking… ${state.simulations} simulations`);
  try {
    render(await api("POST", "/api/engine", { session }));
  } catch (e) {
    showError(e.message);
  } finally {
    setBusy(false);
    if (state) render(state);
  }
}

async function play(move) {
  if (busy || !state || state.outcome) return;
  if (!state.human_to_move) {
    showError("It is not your turn.");
    return;
  }
  showError(null);
  setBusy(true, "Playing " + move + "…");
  let ok = false;
  try {
    render(await api("POST", "/api/move", { session, move }));
    ok = true;
  } catch (e) {
    showError(e.message);
  } finally {
    setBusy(false);
    if (state) render(state);
  }
  if (ok) await maybeEngine();
}

async function simpleAction(path, label) {
  if (busy || !session) return;
  showError(null);
  setBusy(true, label);
  try {
    selected = null;
    render(await api("POST", path, { session }));
  } catch (e) {
    showError(e.message);
  } finally {
    setBusy(false);
    if (state) render(state);
  }
}

function onCellClick(cell) {
  if (!state || busy) return;
  const name = cell.dataset.name;
  if (state.game !== "xiangqi") {
    play(name);
    return;
  }
  // Xiangqi: click a piece of yours, then a destination.
  const own = (p) => p && (state.human_colour === "red" ? p === p.toUpperCase() : p === p.toLowerCase());
  const piece = cell.dataset.content;
  if (selected && selected !== name && state.legal_moves.includes(selected + name)) {
    const mv = selected + name;
    selected = null;
    play(mv);
    return;
  }
  if (own(piece) && selected !== name) {
    selected = name;
  } else {
    selected = null;
  }
  render(state);
}

function pieceStyle() {
  return $("piece-style").value;
}

function heatColour(game) {
  return game === "connect4" ? "255, 140, 0" : "255, 90, 30";
}

function render(s) {
  state = s;
  const board = $("board");
  const game = s.game;
  board.className = "board " + game;
  board.dataset.game = game;
  board.dataset.ready = "true";
  board.dataset.moves = String(s.moves.length);
  board.style.setProperty("--rows", s.rows);
  board.style.setProperty("--cols", s.cols);
  board.style.setProperty("--cell", cellSize(s) + "px");
  board.innerHTML = "";

  const flip = game === "xiangqi" && s.human_side === "second";
  const a = s.analysis;
  const heatMode = game === "xiangqi" && document.querySelector('input[name="heatmode"]:checked').value === "from" ? "from" : "to";
  const heat = a ? (heatMode === "from" && a.heatmap_from ? a.heatmap_from : a.heatmap) : null;
  let maxHeat = 0;
  if (heat) for (const row of heat) for (const v of row) maxHeat = Math.max(maxHeat, v);
  const last = new Set(s.last_move_cells.map(([r, c]) => r + "," + c));
  const targets = new Set();
  if (selected) for (const m of s.legal_moves) if (m.startsWith(selected)) targets.add(m.slice(2));

  // Column / file labels.
  const rowsOrder = [...Array(s.rows).keys()];
  const colsOrder = [...Array(s.cols).keys()];
  if (flip) { rowsOrder.reverse(); colsOrder.reverse(); }

  for (const r of rowsOrder) {
    for (const c of colsOrder) {
      const el = document.createElement("div");
      const content = s.board[r][c];
      const name = s.cells[r][c];
      el.className = content ? "cell occupied" : "cell";
      el.id = `cell-${r}-${c}`;
      el.dataset.row = r;
      el.dataset.col = c;
      el.dataset.name = name;
      el.dataset.content = content;
      const h = heat ? heat[r][c] : 0;
      el.dataset.heat = h.toFixed(4);
      el.title = name + (h > 0 ? ` — ${(100 * h).toFixed(1)}% of visits` : "");
      // Grid-line trimming (gomoku and xiangqi are played on intersections).
      const vr = rowsOrder.indexOf(r), vc = colsOrder.indexOf(c);
      if (vr === 0) el.classList.add("edge-t");
      if (vr === s.rows - 1) el.classList.add("edge-b");
      if (vc === 0) el.classList.add("edge-l");
      if (vc === s.cols - 1) el.classList.add("edge-r");
      if (game === "xiangqi" && vc > 0 && vc < s.cols - 1) {
        if (vr === 4) el.classList.add("river-t");
        if (vr === 5) el.classList.add("river-b");
      }
      if (h > 0 && maxHeat > 0) {
        const hv = document.createElement("div");
        hv.className = "heat";
        const alpha = (0.1 + 0.6 * (h / maxHeat)) * (content ? 1.3 : 1);
        hv.style.background = `rgba(${heatColour(game)}, ${alpha.toFixed(3)})`;
        el.appendChild(hv);
      }
      if (content) {
        const p = document.createElement("div");
        if (game === "xiangqi") {
          const red = content === content.toUpperCase();
          p.className = "piece " + (red ? "red" : "black");
          p.textContent = pieceStyle() === "letters" ? content.toUpperCase() : (XQ_NAMES[content] || content);
          p.dataset.letter = content;
        } else {
          p.className = "stone " + content;
        }
        el.appendChild(p);
      } else if (game === "connect4") {
        const hole = document.createElement("div");
        hole.className = "hole";
        el.appendChild(hole);
      }
      if (h >= 0.01) {
        const lab = document.createElement("span");
        lab.className = "heat-label";
        lab.textContent = Math.round(100 * h) + "%";
        el.appendChild(lab);
      }
      if (last.has(r + "," + c)) el.classList.add("last");
      if (selected === name) el.classList.add("selected");
      if (targets.has(name)) el.classList.add("target");
      if (s.human_to_move && !s.outcome) el.classList.add("clickable");
      el.addEventListener("click", () => onCellClick(el));
      board.appendChild(el);
    }
  }
  if (game === "xiangqi") board.appendChild(palaceLines()); // symmetric under the flip
  renderLabels(s, rowsOrder, colsOrder);

  // Status line.
  let status;
  if (s.outcome) status = "Game over: " + s.outcome.text + " (" + s.outcome.result + ")";
  else if (s.human_to_move) status = `Your move (${s.human_colour})` + (s.in_check ? " — check!" : "");
  else status = `Engine to move (${s.engine_colour})`;
  if (!busy) $("status").textContent = status;
  $("status").dataset.outcome = s.outcome ? s.outcome.result : "";
  $("engine-desc").textContent = `${s.game}${s.rule ? " (" + s.rule + ")" : ""} — engine: ${s.engine}, ${s.simulations} simulations per move`;
  $("heat-options").hidden = game !== "xiangqi";

  // Moves.
  const ol = $("moves");
  ol.innerHTML = "";
  for (let i = 0; i < s.moves.length; i += 2) {
    const li = document.createElement("li");
    li.textContent = s.moves[i] + (i + 1 < s.moves.length ? "  " + s.moves[i + 1] : "");
    ol.appendChild(li);
  }
  ol.scrollTop = ol.scrollHeight;

  // Analysis.
  const sec = $("analysis");
  const tbody = $("top-moves").querySelector("tbody");
  tbody.innerHTML = "";
  if (a) {
    sec.dataset.ply = String(a.ply);
    const v = a.value;
    $("value-num").textContent = (v >= 0 ? "+" : "") + v.toFixed(3);
    const fill = $("value-fill");
    fill.style.width = (50 * (v + 1)).toFixed(1) + "%";
    fill.className = v >= 0 ? "pos" : "neg";
    $("analysis-note").textContent = `search of ply ${a.ply + 1} (${a.side} to move), ${a.simulations} simulations: ` +
      (a.played ? `played ${a.played}` : `would play ${a.best_move || "—"}`);
    for (const t of a.top_moves) {
      const tr = document.createElement("tr");
      const q = t.proven ? `${t.q.toFixed(3)} (proven ${t.proven})` : t.q.toFixed(3);
      for (const x of [t.move, t.visits, (100 * t.share).toFixed(1) + "%", q, t.prior.toFixed(3)]) {
        const td = document.createElement("td");
        td.textContent = x;
        tr.appendChild(td);
      }
      tbody.appendChild(tr);
    }
    $("pv").textContent = a.pv.length ? a.pv.join(" ") : "—";
  } else {
    sec.dataset.ply = "";
    $("value-num").textContent = "—";
    $("value-fill").style.width = "50%";
    $("value-fill").className = "";
    $("analysis-note").textContent = "no search yet";
    $("pv").textContent = "—";
  }
  const rec = $("record");
  rec.href = "/api/record?session=" + encodeURIComponent(s.session);
  rec.classList.remove("disabled");
  $("undo").disabled = busy;
  $("analyse").disabled = busy || !!s.outcome;
}

// The two palaces' diagonals, drawn over the grid (coordinates in cells, as drawn).
function palaceLines() {
  const NS = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("class", "palace");
  svg.setAttribute("viewBox", "0 0 9 10");
  svg.setAttribute("preserveAspectRatio", "none");
  for (const [x1, y1, x2, y2] of [[3, 0, 5, 2], [5, 0, 3, 2], [3, 7, 5, 9], [5, 7, 3, 9]]) {
    const l = document.createElementNS(NS, "line");
    l.setAttribute("x1", x1 + 0.5); l.setAttribute("y1", y1 + 0.5);
    l.setAttribute("x2", x2 + 0.5); l.setAttribute("y2", y2 + 0.5);
    l.setAttribute("vector-effect", "non-scaling-stroke");
    svg.appendChild(l);
  }
  return svg;
}

function cellSize(s) {
  const avail = Math.min(window.innerWidth - 40, 640);
  const per = Math.floor(avail / (s.cols + 1));
  return Math.max(22, Math.min(s.game === "connect4" ? 64 : 56, per));
}

function renderLabels(s, rowsOrder, colsOrder) {
  const wrap = $("board-wrap");
  for (const old of wrap.querySelectorAll(".labels")) old.remove();
  const top = document.createElement("div");
  top.className = "labels cols";
  const left = document.createElement("div");
  left.className = "labels rows";
  const size = cellSize(s) + "px";
  for (const c of colsOrder) {
    const name = s.cells[s.rows - 1][c];
    const span = document.createElement("span");
    span.style.width = size;
    span.textContent = s.game === "connect4" ? name : name.replace(/[0-9]+$/, "");
    top.appendChild(span);
  }
  for (const r of rowsOrder) {
    const name = s.cells[r][0];
    const span = document.createElement("span");
    span.style.height = size;
    span.style.lineHeight = size;
    span.textContent = s.game === "connect4" ? "" : name.replace(/^[a-z]+/, "");
    left.appendChild(span);
  }
  if (s.game !== "connect4") wrap.appendChild(left);
  wrap.appendChild(top);
}

async function resume() {
  let id = null;
  try { id = localStorage.getItem("alphazero-session"); } catch (e) { /* no storage */ }
  if (!id) return;
  try {
    session = id;
    render(await api("GET", "/api/state?session=" + encodeURIComponent(id)));
    setBusy(false);
    render(state);
    await maybeEngine();
  } catch (e) {
    session = null;
    state = null;
    try { localStorage.removeItem("alphazero-session"); } catch (e2) { /* ignore */ }
  }
}

$("new-game").addEventListener("submit", newGame);
$("game").addEventListener("change", updateOptionVisibility);
$("sims").addEventListener("input", () => { $("sims-out").textContent = $("sims").value; });
$("undo").addEventListener("click", () => simpleAction("/api/undo", "Taking back…"));
$("analyse").addEventListener("click", () => simpleAction("/api/analysis", "Analysing…"));
$("piece-style").addEventListener("change", () => {
  try { localStorage.setItem("alphazero-piece-style", pieceStyle()); } catch (e) { /* ignore */ }
  if (state) render(state);
});
try {
  const ps = localStorage.getItem("alphazero-piece-style");
  if (ps) $("piece-style").value = ps;
} catch (e) { /* ignore */ }
for (const r of document.querySelectorAll('input[name="heatmode"]')) {
  r.addEventListener("change", () => { if (state) render(state); });
}
$("record").addEventListener("click", (e) => { if (!session) e.preventDefault(); });
window.addEventListener("resize", () => { if (state) render(state); });
updateOptionVisibility();
resume();
