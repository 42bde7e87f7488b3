// alphazero-rs web page: talks to the JSON API (crates/web/API.md), keeps only the session id.
//
// Analysis board: `view` is the ply on screen (null: the end of the game, following it). Any
// earlier position can be viewed (buttons, arrow keys, the move list, the value graph),
// analysed, and played from (the server drops the later moves). A continuous analysis runs on
// the server while the page polls the state; in analysis mode a new position on screen
// (stepping, a move and the engine's answer) restarts it there.
"use strict";

const $ = (id) => document.getElementById(id);
let session = null;
let state = null;
let busy = false;
let selected = null; // xiangqi: the square name of the selected piece
let view = null; // the viewed ply, or null for the end of the game
let liveMode = false; // the user wants the continuous analysis of whatever is on screen
let pollTimer = null;
let requestSeq = 0; // answers to older requests than the last rendered one are dropped
let renderedSeq = 0;
let hoverLine = null; // what the mouse is on: {move} (a top-move row) or {pv: true}

const POLL_MS = 400;
const XQ_NAMES = {
  K: "帥", A: "仕", B: "相", N: "傌", R: "俥", C: "炮", P: "兵",
  k: "將", a: "士", b: "象", n: "馬", r: "車", c: "砲", p: "卒",
};
const SIDE_LABELS = {
  connect4: { first: "first (red)", second: "second (yellow)" },
  gomoku: { first: "first (black)", second: "second (white)" },
  xiangqi: { first: "first (red)", second: "second (black)" },
};
const START_HINTS = {
  connect4: "optional: moves, e.g. 4 4 3",
  gomoku: "optional: moves, e.g. h8 h9 i8",
  xiangqi: "optional: a FEN, or moves h2e2 h9g7",
};

function setBusy(b, text) {
  busy = b;
  document.body.dataset.busy = b ? "true" : "false";
  if (text) $("status").textContent = text;
  updateButtons();
}

function updateButtons() {
  const s = state;
  $("undo").disabled = busy || !session;
  const over = !s || (s.outcome && s.ply === s.moves.length);
  const running = !!(s && s.live && s.live.running);
  $("analyse").disabled = busy || !session || !!over || running;
  $("stop").disabled = !running && !liveMode;
  const len = s ? s.moves.length : 0;
  const at = s ? s.ply : 0;
  $("nav-first").disabled = busy || !s || at === 0;
  $("nav-prev").disabled = busy || !s || at === 0;
  $("nav-next").disabled = busy || !s || at >= len;
  $("nav-last").disabled = busy || !s || at >= len;
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

/// Fetches the state of the viewed position; renders it unless a newer answer came first.
async function refresh() {
  if (!session) return;
  const seq = ++requestSeq;
  let path = "/api/state?session=" + encodeURIComponent(session);
  if (view !== null) path += "&ply=" + view;
  const s = await api("GET", path);
  if (seq < renderedSeq) return;
  renderedSeq = seq;
  render(s);
}

function withSeq(s) {
  renderedSeq = ++requestSeq;
  render(s);
}

function updateOptionVisibility() {
  const game = $("game").value;
  $("gomoku-options").hidden = game !== "gomoku";
  const labels = SIDE_LABELS[game];
  for (const opt of $("side").options) opt.textContent = labels[opt.value];
  $("start").placeholder = START_HINTS[game];
}

/// The form shows the settings of the game on screen (after a reload too).
function syncForm(s) {
  $("game").value = s.game;
  if (s.game === "gomoku") {
    $("size").value = String(s.rows);
    $("rule").value = s.rule || "freestyle";
  }
  $("side").value = s.human_side;
  $("sims").value = String(s.simulations);
  $("sims-out").textContent = String(s.simulations);
  updateOptionVisibility();
}

/// The "start from" field as API fields: Xiangqi text with a '/' is a FEN, anything else is
/// moves separated by blanks or commas (Connect Four digits may be run together: "4453").
function startFields(game, text) {
  text = text.trim();
  if (!text) return {};
  if (game === "xiangqi" && text.includes("/")) return { fen: text };
  // Gomoku moves may be Gomocup "x,y" pairs: only blanks and ';' separate them.
  let moves = text.split(game === "gomoku" ? /[\s;]+/ : /[\s,;]+/).filter((m) => m);
  if (game === "connect4") moves = moves.flatMap((m) => (/^[0-9]+$/.test(m) ? m.split("") : [m]));
  return { moves };
}

async function newGame(ev) {
  if (ev) ev.preventDefault();
  if (busy) return;
  showError(null);
  await stopLive(false);
  const game = $("game").value;
  const body = {
    game,
    human_side: $("side").value,
    simulations: Number($("sims").value),
    ...startFields(game, $("start").value),
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
    view = null;
    liveMode = false;
    withSeq(s);
  } catch (e) {
    showError(e.message);
  } finally {
    setBusy(false);
    if (state) render(state);
  }
  await maybeEngine();
}

async function maybeEngine() {
  if (!state || state.outcome || state.human_to_move || view !== null) {
    if (liveMode) await startLive();
    return;
  }
  setBusy(true, `Engine (${state.engine_colour}) is thinking… ${state.simulations} simulations`);
  try {
    withSeq(await api("POST", "/api/engine", { session }));
  } catch (e) {
    showError(e.message);
  } finally {
    setBusy(false);
    if (state) render(state);
  }
  if (liveMode) await startLive();
}

async function play(move) {
  if (busy || !state || state.outcome) return;
  if (!state.human_to_move) {
    showError(state.ply < state.moves.length
      ? `At move ${state.ply} the engine is to move: step to a position where it is your turn.`
      : "It is not your turn.");
    return;
  }
  showError(null);
  setBusy(true, "Playing " + move + "…");
  let ok = false;
  const body = { session, move };
  if (view !== null) body.ply = view; // play from the viewed position: later moves are dropped
  try {
    view = null;
    withSeq(await api("POST", "/api/move", body));
    ok = true;
  } catch (e) {
    showError(e.message);
    view = body.ply === undefined ? null : body.ply;
  } finally {
    setBusy(false);
    if (state) render(state);
  }
  if (ok) await maybeEngine();
}

async function undo() {
  if (busy || !session) return;
  showError(null);
  setBusy(true, "Taking back…");
  try {
    selected = null;
    view = null;
    withSeq(await api("POST", "/api/undo", { session }));
  } catch (e) {
    showError(e.message);
  } finally {
    setBusy(false);
    if (state) render(state);
  }
  if (liveMode) await startLive();
}

/// Views the position after `ply` moves (the end of the game follows new moves).
async function goto(ply) {
  if (busy || !state) return;
  const len = state.moves.length;
  ply = Math.max(0, Math.min(len, ply));
  const next = ply >= len ? null : ply;
  if (next === view && state.ply === ply) return;
  view = next;
  selected = null;
  showError(null);
  try {
    await refresh();
  } catch (e) {
    showError(e.message);
  }
  if (liveMode) await startLive();
}

// ---- Continuous analysis ----

async function startLive() {
  if (!session || !state) return;
  liveMode = true;
  const body = { session };
  if (view !== null) body.ply = view;
  try {
    if (state.live && state.live.running) await api("POST", "/api/analysis/stop", { session });
    if (view === null && state.outcome) { liveMode = false; updateButtons(); return; }
    withSeq(await api("POST", "/api/analysis/start", body));
    showError(null);
  } catch (e) {
    showError(e.message);
    liveMode = false;
  }
  schedulePoll();
  updateButtons();
}

async function stopLive(userAsked) {
  liveMode = false;
  if (pollTimer) { clearTimeout(pollTimer); pollTimer = null; }
  if (!session || !state || !state.live || !state.live.running) { updateButtons(); return; }
  try {
    const s = await api("POST", "/api/analysis/stop", { session });
    if (userAsked) await refresh(); else state.live = s.live;
  } catch (e) {
    if (userAsked) showError(e.message);
  }
  updateButtons();
}

function schedulePoll() {
  if (pollTimer) clearTimeout(pollTimer);
  pollTimer = setTimeout(async () => {
    pollTimer = null;
    if (!state || !state.live || !state.live.running) return;
    try {
      await refresh();
    } catch (e) {
      showError(e.message);
      return;
    }
    if (state.live && state.live.running) schedulePoll();
    else if (state.live && state.live.stopped !== "the game changed") { liveMode = false; updateButtons(); }
  }, POLL_MS);
}

// ---- Board ----

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
  if (own(piece) && selected !== name && state.human_to_move) {
    selected = name;
  } else {
    selected = null;
  }
  render(state);
}

function pieceStyle() {
  return $("piece-style").value;
}

/// Whether the browser has a font for the Xiangqi characters: a missing glyph draws the same
/// box as a character that exists in no font.
function hanziRenders() {
  try {
    const c = document.createElement("canvas");
    c.width = 40; c.height = 40;
    const g = c.getContext("2d");
    const draw = (ch) => {
      g.clearRect(0, 0, 40, 40);
      g.font = '32px "Noto Serif CJK SC", "Songti SC", "SimSun", serif';
      g.fillText(ch, 2, 34);
      return g.getImageData(0, 0, 40, 40).data.join(",");
    };
    const missing = draw("\uFFFF");
    return draw("帥") !== missing && draw("炮") !== missing;
  } catch (e) {
    return true;
  }
}

function heatColour(game) {
  return game === "connect4" ? "255, 140, 0" : "255, 90, 30";
}

/// The colour of the side not to move in `s`.
function otherColour(s) {
  return s.colour_to_move === s.human_colour ? s.engine_colour : s.human_colour;
}

function render(s) {
  state = s;
  const board = $("board");
  const game = s.game;
  board.className = "board " + game;
  board.dataset.game = game;
  board.dataset.ready = "true";
  board.dataset.moves = String(s.moves.length);
  board.dataset.ply = String(s.ply);
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
  const decisive = new Set(s.outcome ? s.outcome.cells.map(([r, c]) => r + "," + c) : []);
  // The last mover lost (a renju foul): its move is marked as the losing one.
  const foulLost = !!(s.outcome && s.outcome.winner === s.side_to_move);
  const fouls = new Map(s.forbidden.map((f) => [f.cell[0] + "," + f.cell[1], f]));
  const targets = new Set();
  if (selected) for (const m of s.legal_moves) if (m.startsWith(selected)) targets.add(m.slice(2));

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
        const k = h / maxHeat;
        if (content) {
          // A ring around the piece or stone, its width and strength growing with the share.
          const w = Math.round(3 + 4 * k);
          hv.style.boxShadow = `0 0 0 ${w}px rgba(${heatColour(game)}, ${(0.55 + 0.45 * k).toFixed(3)})`;
        } else {
          hv.style.background = `rgba(${heatColour(game)}, ${(0.1 + 0.6 * k).toFixed(3)})`;
        }
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
      const foul = fouls.get(r + "," + c);
      if (foul) {
        el.classList.add("forbidden");
        const x = document.createElement("div");
        x.className = "foul";
        x.textContent = "×";
        el.appendChild(x);
        el.title = `${name} — forbidden for black (${foul.kind})`;
      }
      if (h >= 0.01) {
        const lab = document.createElement("span");
        lab.className = "heat-label";
        lab.textContent = Math.round(100 * h) + "%";
        el.appendChild(lab);
      }
      if (last.has(r + "," + c)) el.classList.add("last");
      if (decisive.has(r + "," + c)) el.classList.add("win", foulLost ? "lost" : "won");
      if (selected === name) el.classList.add("selected");
      if (targets.has(name)) el.classList.add("target");
      if (s.human_to_move && !s.outcome) el.classList.add("clickable");
      el.addEventListener("click", () => onCellClick(el));
      board.appendChild(el);
    }
  }
  if (game === "xiangqi") board.appendChild(palaceLines()); // symmetric under the flip
  renderLabels(s, rowsOrder, colsOrder);
  drawLine();

  // Status line and the reason the game ended.
  const len = s.moves.length;
  let status;
  if (s.outcome) {
    const why = s.outcome.reason ? ` (${s.outcome.reason})` : "";
    status = "Game over: " + s.outcome.text.replace(why, "") + " (" + s.outcome.result + ")";
  }
  else if (s.ply < len) status = `Move ${s.ply} of ${len}: ${s.colour_to_move} to move` + (s.in_check ? " — check!" : "") +
    (s.human_to_move ? " (a move here drops the later ones)" : "");
  else if (s.human_to_move) status = `Your move (${s.human_colour})` + (s.in_check ? " — check!" : "");
  else status = `Engine to move (${s.engine_colour})`;
  if (!busy) $("status").textContent = status;
  $("status").dataset.outcome = s.outcome ? s.outcome.result : "";
  $("reason").textContent = s.outcome && s.outcome.reason ? "Why: " + s.outcome.reason : "";
  $("reason").hidden = !(s.outcome && s.outcome.reason);
  $("engine-desc").textContent = `${s.game}${s.rule ? " (" + s.rule + ")" : ""} — engine: ${s.engine}, ${s.simulations} simulations per move`;
  $("heat-options").hidden = game !== "xiangqi";
  $("nav-pos").textContent = `${s.ply} / ${len}`;

  renderMoves(s);
  renderGraph(s);
  renderAnalysis(s);
  const rec = $("record");
  rec.href = "/api/record?session=" + encodeURIComponent(s.session);
  rec.classList.remove("disabled");
  updateButtons();
}

function renderMoves(s) {
  const ol = $("moves");
  ol.innerHTML = "";
  for (let i = 0; i < s.moves.length; i += 2) {
    const li = document.createElement("li");
    for (const j of [i, i + 1]) {
      if (j >= s.moves.length) break;
      const span = document.createElement("span");
      span.className = "mv" + (j + 1 === s.ply ? " current" : "");
      span.dataset.ply = String(j + 1);
      span.textContent = s.moves[j];
      span.addEventListener("click", () => goto(j + 1));
      li.appendChild(span);
    }
    ol.appendChild(li);
  }
  const cur = ol.querySelector(".mv.current");
  if (cur) cur.scrollIntoView({ block: "nearest" });
  else if (s.ply === 0) ol.scrollTop = 0;
}

function renderAnalysis(s) {
  const a = s.analysis;
  const sec = $("analysis");
  const tbody = $("top-moves").querySelector("tbody");
  tbody.innerHTML = "";
  const live = s.live && s.live.ply === s.ply ? s.live : null;
  $("live").hidden = !live;
  if (live) {
    const secs = (live.elapsed_ms / 1000).toFixed(1);
    $("live").dataset.running = String(live.running);
    $("live").textContent = live.running
      ? `analysing: ${live.simulations.toLocaleString("en")} simulations, ${secs} s (stops at ${live.max_seconds} s or ${live.max_simulations.toLocaleString("en")})`
      : `analysis ${live.stopped === "stopped" ? "stopped" : "ended: " + live.stopped} after ${live.simulations.toLocaleString("en")} simulations, ${secs} s`;
  }
  if (a) {
    sec.dataset.ply = String(a.ply);
    sec.dataset.simulations = String(a.simulations);
    const v = a.value;
    $("value-num").textContent = (v >= 0 ? "+" : "") + v.toFixed(3);
    const fill = $("value-fill");
    fill.style.width = (50 * (v + 1)).toFixed(1) + "%";
    fill.className = v >= 0 ? "pos" : "neg";
    $("analysis-note").textContent = `search of move ${a.ply} (${a.side} to move), ${a.simulations} simulations: ` +
      (a.played ? `played ${a.played}` : `would play ${a.best_move || "—"}`);
    // Q as the value bar shows it, from the engine's side: the search gives it from the
    // searched side, the human's when the human is to move there.
    const sign = a.side === s.human_side ? -1 : 1;
    const proven = { win: sign > 0 ? "win" : "loss", loss: sign > 0 ? "loss" : "win", draw: "draw" };
    for (const t of a.top_moves) {
      const tr = document.createElement("tr");
      const qv = sign * t.q;
      const qText = (qv >= 0 ? "+" : "") + qv.toFixed(3);
      const q = t.proven ? `${qText} (engine ${proven[t.proven]})` : t.visits > 0 ? qText : "–";
      for (const x of [t.move, t.visits, (100 * t.share).toFixed(1) + "%", q, t.prior.toFixed(3)]) {
        const td = document.createElement("td");
        td.textContent = x;
        tr.appendChild(td);
      }
      tr.dataset.move = t.move;
      tr.title = "line: " + t.pv.join(" ");
      tbody.appendChild(tr);
    }
    $("pv").textContent = a.pv.length ? a.pv.join(" ") : "—";
  } else {
    sec.dataset.ply = "";
    sec.dataset.simulations = "";
    $("value-num").textContent = "—";
    $("value-fill").style.width = "50%";
    $("value-fill").className = "";
    $("analysis-note").textContent = "no search of this position yet";
    $("pv").textContent = "—";
  }
}

/// The line under the mouse: the hovered top move's, or the principal variation. Drawn over
/// the searched position, or over the next one when the engine has just played its first move.
function hoveredLine(s) {
  const a = s && s.analysis;
  if (!a || !hoverLine || (a.ply !== s.ply && a.ply + 1 !== s.ply)) return null;
  if (hoverLine.pv) return a.pv_cells;
  const t = a.top_moves.find((m) => m.move === hoverLine.move);
  return t ? t.pv_cells : null;
}

// The table body and the PV stay while their rows are redrawn (the continuous analysis
// re-renders them): the hover is followed on them.
function setHover(h) {
  const same = JSON.stringify(h) === JSON.stringify(hoverLine);
  hoverLine = h;
  if (!same) drawLine();
}

/// The line of the hovered top move on the board: numbered stones (Gomoku, Connect Four) or
/// numbered arrows (Xiangqi), the side to move first. Drawn only over the searched position.
function drawLine() {
  const board = $("board");
  for (const old of board.querySelectorAll(".pv-stone, svg.pv-arrows")) old.remove();
  const s = state;
  const cells = hoveredLine(s);
  if (!cells) return;
  // The searched side moves first (the side to move, or the one that has just moved).
  const a = s.analysis;
  const first = a.ply === s.ply ? s.colour_to_move : otherColour(s);
  const second = a.ply === s.ply ? otherColour(s) : s.colour_to_move;
  if (s.game !== "xiangqi") {
    cells.forEach((step, i) => {
      const cell = $(`cell-${step.to[0]}-${step.to[1]}`);
      if (!cell) return;
      const st = document.createElement("div");
      st.className = "pv-stone " + (i % 2 === 0 ? first : second);
      st.textContent = String(i + 1);
      st.dataset.step = String(i + 1);
      cell.appendChild(st);
    });
    return;
  }
  const flip = s.human_side === "second";
  const NS = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("class", "pv-arrows");
  svg.setAttribute("viewBox", `0 0 ${s.cols} ${s.rows}`);
  const defs = document.createElementNS(NS, "defs");
  for (const [id, colour] of [["pv-head-0", "#1e6ed2"], ["pv-head-1", "#7a3fb8"]]) {
    const m = document.createElementNS(NS, "marker");
    m.setAttribute("id", id);
    m.setAttribute("viewBox", "0 0 10 10");
    m.setAttribute("refX", "8"); m.setAttribute("refY", "5");
    m.setAttribute("markerWidth", "4"); m.setAttribute("markerHeight", "4");
    m.setAttribute("orient", "auto-start-reverse");
    const p = document.createElementNS(NS, "path");
    p.setAttribute("d", "M 0 0 L 10 5 L 0 10 z");
    p.setAttribute("fill", colour);
    m.appendChild(p);
    defs.appendChild(m);
  }
  svg.appendChild(defs);
  const pos = ([r, c]) => flip ? [s.cols - 1 - c + 0.5, s.rows - 1 - r + 0.5] : [c + 0.5, r + 0.5];
  cells.forEach((step, i) => {
    if (!step.from) return;
    const [x1, y1] = pos(step.from), [x2, y2] = pos(step.to);
    const g = document.createElementNS(NS, "g");
    g.setAttribute("class", "pv-arrow " + (i % 2 === 0 ? "mine" : "theirs"));
    g.dataset.step = String(i + 1);
    const l = document.createElementNS(NS, "line");
    l.setAttribute("x1", x1); l.setAttribute("y1", y1);
    l.setAttribute("x2", x2); l.setAttribute("y2", y2);
    l.setAttribute("marker-end", `url(#pv-head-${i % 2})`);
    g.appendChild(l);
    const circ = document.createElementNS(NS, "circle");
    circ.setAttribute("cx", x1 + (x2 - x1) * 0.5); circ.setAttribute("cy", y1 + (y2 - y1) * 0.5);
    circ.setAttribute("r", "0.22");
    g.appendChild(circ);
    const t = document.createElementNS(NS, "text");
    t.setAttribute("x", x1 + (x2 - x1) * 0.5); t.setAttribute("y", y1 + (y2 - y1) * 0.5);
    t.textContent = String(i + 1);
    g.appendChild(t);
    svg.appendChild(g);
  });
  board.appendChild(svg);
}

/// The value of every searched position (engine's side) over the game; a click jumps there.
function renderGraph(s) {
  const NS = "http://www.w3.org/2000/svg";
  const svg = $("graph");
  const W = graphWidth(), H = 100, pad = 6;
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.innerHTML = "";
  const n = Math.max(1, s.moves.length);
  const x = (ply) => pad + (W - 2 * pad) * ply / n;
  const y = (v) => H / 2 - (H / 2 - pad) * v;
  const el = (tag, attrs) => {
    const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    svg.appendChild(e);
    return e;
  };
  el("rect", { x: 0, y: 0, width: W, height: H / 2, class: "engine-half" });
  el("rect", { x: 0, y: H / 2, width: W, height: H / 2, class: "human-half" });
  el("line", { x1: 0, y1: H / 2, x2: W, y2: H / 2, class: "mid" });
  el("line", { x1: x(s.ply), y1: 0, x2: x(s.ply), y2: H, class: "cursor" });
  const pts = [];
  s.values.forEach((v, ply) => { if (v !== null) pts.push([ply, v]); });
  if (pts.length > 1) {
    el("polyline", { points: pts.map(([p, v]) => `${x(p).toFixed(1)},${y(v).toFixed(1)}`).join(" "), class: "values" });
  }
  for (const [p, v] of pts) {
    const c = el("circle", { cx: x(p).toFixed(1), cy: y(v).toFixed(1), r: p === s.ply ? 4 : 2.5, class: "point" + (p === s.ply ? " current" : "") });
    c.dataset.ply = String(p);
    const t = document.createElementNS(NS, "title");
    t.textContent = `move ${p}: ${(v >= 0 ? "+" : "") + v.toFixed(3)}`;
    c.appendChild(t);
  }
  svg.dataset.points = String(pts.length);
  if (!pts.length) {
    const t = el("text", { x: W / 2, y: H / 2 - 6, class: "empty" });
    t.textContent = "no position searched yet";
  }
}

/// The graph's drawing width: its width on screen (user units are pixels).
function graphWidth() {
  return Math.max(100, Math.round($("graph").getBoundingClientRect().width) || 400);
}

function graphClick(ev) {
  if (!state) return;
  const svg = $("graph");
  const box = svg.getBoundingClientRect();
  const W = graphWidth(), pad = 6;
  const fx = (ev.clientX - box.left) / box.width * W;
  const n = Math.max(1, state.moves.length);
  goto(Math.round((fx - pad) / (W - 2 * pad) * n));
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

// Height the page needs besides the board's cells: the header, the status line, the
// coordinates, the move buttons, the heat options and the value graph, which stays in view.
const BESIDE_BOARD_PX = 360;

function cellSize(s) {
  const avail = Math.min(window.innerWidth - 40, 640);
  const perW = Math.floor(avail / (s.cols + 1));
  const perH = Math.floor((window.innerHeight - BESIDE_BOARD_PX) / (s.rows + 1));
  return Math.max(22, Math.min(s.game === "connect4" ? 64 : 56, perW, perH));
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
  // A first visit opens on a board: a game with the form's settings (Connect Four).
  if (!id) return newGame();
  try {
    session = id;
    withSeq(await api("GET", "/api/state?session=" + encodeURIComponent(id)));
    syncForm(state);
    setBusy(false);
    render(state);
    if (state.live && state.live.running) {
      // Back to the position being analysed.
      liveMode = true;
      if (state.live.ply < state.moves.length) {
        view = state.live.ply;
        await refresh();
      }
      schedulePoll();
    }
    await maybeEngine();
  } catch (e) {
    session = null;
    state = null;
    try { localStorage.removeItem("alphazero-session"); } catch (e2) { /* ignore */ }
    // The server forgot the game (restarted): a new one, so the page still opens on a board.
    await newGame();
  }
}

function onKey(ev) {
  const tag = (ev.target && ev.target.tagName) || "";
  if (["INPUT", "SELECT", "TEXTAREA"].includes(tag) || ev.altKey || ev.ctrlKey || ev.metaKey) return;
  if (!state) return;
  const len = state.moves.length;
  const at = state.ply;
  const to = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: len }[ev.key];
  if (to === undefined) return;
  ev.preventDefault();
  goto(to);
}

$("new-game").addEventListener("submit", newGame);
$("game").addEventListener("change", updateOptionVisibility);
$("sims").addEventListener("input", () => { $("sims-out").textContent = $("sims").value; });
$("undo").addEventListener("click", undo);
$("analyse").addEventListener("click", startLive);
$("stop").addEventListener("click", () => stopLive(true));
$("nav-first").addEventListener("click", () => goto(0));
$("nav-prev").addEventListener("click", () => state && goto(state.ply - 1));
$("nav-next").addEventListener("click", () => state && goto(state.ply + 1));
$("nav-last").addEventListener("click", () => state && goto(state.moves.length));
$("graph").addEventListener("click", graphClick);
{
  const tbody = $("top-moves").querySelector("tbody");
  tbody.addEventListener("mouseover", (ev) => {
    const tr = ev.target.closest("tr");
    setHover(tr && tr.dataset.move ? { move: tr.dataset.move } : null);
  });
  tbody.addEventListener("mouseleave", () => setHover(null));
  $("pv").addEventListener("mouseenter", () => setHover({ pv: true }));
  $("pv").addEventListener("mouseleave", () => setHover(null));
}
document.addEventListener("keydown", onKey);
$("piece-style").addEventListener("change", () => {
  try { localStorage.setItem("alphazero-piece-style", pieceStyle()); } catch (e) { /* ignore */ }
  if (state) render(state);
});
{
  let ps = null;
  try { ps = localStorage.getItem("alphazero-piece-style"); } catch (e) { /* ignore */ }
  // Without a font for the characters the pieces would be empty rings: letters then.
  $("piece-style").value = ps || (hanziRenders() ? "hanzi" : "letters");
}
for (const r of document.querySelectorAll('input[name="heatmode"]')) {
  r.addEventListener("change", () => { if (state) render(state); });
}
$("record").addEventListener("click", (e) => { if (!session) e.preventDefault(); });
window.addEventListener("resize", () => { if (state) render(state); });
updateOptionVisibility();
resume();
