// The rating page: shows one painting (or a pair), sends each key press to the API, and asks
// the server what comes next. The server holds the queue; this page remembers the rater's name
// and the "show ratings" toggle (localStorage), and the receipts of this tab's votes, which are
// what undo takes back (sessionStorage: a receipt is the only way to undo a vote). Sketch
// sources are untrusted: they go into the page as text (textContent), and Prism escapes what it
// highlights.
"use strict";

const RATER_KEY = "brushwork.rater";
const SHOW_KEY = "brushwork.show";
const RECEIPTS_KEY = "brushwork.receipts";
const $ = (id) => document.getElementById(id);

const state = {
  mode: new URLSearchParams(location.search).get("mode") === "pair" ? "pair" : "tier",
  tiers: [],
  active: false,    // the server picks what is asked next (--active) and says why
  serverBlind: false,
  rater: (localStorage.getItem(RATER_KEY) || "").trim(),
  item: null,       // the painting shown (tier mode)
  pair: null,       // [a, b] (pair mode)
  skips: 0,         // pairs skipped since the last preference
  busy: false,
};

// -- talking to the server ------------------------------------------------------------------
async function api(path, body) {
  const init = body === undefined ? {} : {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body),
  };
  const res = await fetch(path, init);
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(data.error || `${res.status} ${res.statusText}`);
  return data;
}

function query(params) {
  return new URLSearchParams({ ...params, show: show() ? "1" : "0" }).toString();
}

// Blind by default: earlier ratings appear once this rater has rated the painting, or always
// when they ask for them (never when the server runs --blind).
const show = () => !state.serverBlind && localStorage.getItem(SHOW_KEY) === "1";

// This tab's receipts, newest last, one stack per mode (undo in Compare takes back a comparison).
function receipts() {
  try {
    return JSON.parse(sessionStorage.getItem(`${RECEIPTS_KEY}.${state.mode}`) || "[]");
  } catch {
    return [];
  }
}

function keepReceipts(list) {
  sessionStorage.setItem(`${RECEIPTS_KEY}.${state.mode}`, JSON.stringify(list.slice(-200)));
}

// One action at a time: a key pressed while the next painting loads is dropped, so nobody
// rates a painting they have not seen yet.
async function run(action) {
  if (state.busy || !state.rater) return;
  state.busy = true;
  document.body.dataset.state = "busy";
  try {
    await action();
  } catch (err) {
    toast(err.message, true);
  } finally {
    state.busy = false;
    document.body.dataset.state = "ready";
  }
}

// -- showing things ----------------------------------------------------------------------------
async function loadImage(img, src) {
  const next = new Image();
  next.src = src;
  await next.decode().catch(() => {});   // a broken image still shows its alt text
  img.src = src;
}

function showProgress(p) {
  const rated = state.mode === "pair" ? 0 : p.rated;
  $("progress-fill").style.width = p.total ? `${(100 * rated) / p.total}%` : "0";
  $("progress-text").textContent = state.mode === "pair"
    ? `${p.compared} comparison${p.compared === 1 ? "" : "s"} by ${state.rater}`
    : `${p.rated} / ${p.total} rated by ${state.rater}`;
}

function fact(dl, name, value) {
  if (value === null || value === undefined || value === "") return;
  const dt = document.createElement("dt");
  const dd = document.createElement("dd");
  dt.textContent = name;
  dd.textContent = typeof value === "object" ? JSON.stringify(value) : String(value);
  dl.append(dt, dd);
}

function showMeta(item) {
  $("subject").textContent = item.subject || "untitled";
  $("prompt").textContent = item.prompt;
  const facts = $("facts");
  facts.replaceChildren();
  fact(facts, "id", item.id);
  fact(facts, "generator", item.generator);
  for (const [key, value] of Object.entries(item.provenance || {})) fact(facts, key, value);
  const list = $("ratings");
  list.replaceChildren();
  for (const r of item.ratings || []) {
    const li = document.createElement("li");
    li.className = `tier-${state.tiers.indexOf(r.tier)}`;
    li.textContent = `${r.rater}: ${r.tier}`;
    list.append(li);
  }
}

function showWhy(el, why) {
  el.textContent = why || "";
  el.hidden = !why;
}

async function showItem(item, done, why) {
  state.item = item;
  $("empty").hidden = !!item;
  $("tier-view").hidden = !item;
  if (!item) return;
  await loadImage($("painting"), item.image);
  showMeta(item);
  showWhy($("why"), why);
  $("done-note").hidden = !done;
  const code = $("code");
  code.textContent = item.source || "// this painting has no source";
  if (window.Prism) window.Prism.highlightElement(code);
  code.parentElement.scrollTop = 0;
  document.body.dataset.item = item.id;
}

async function showPair(pair, done, why) {
  state.pair = pair;
  $("empty").hidden = !!pair;
  if (!pair && done) $("empty").textContent = "Every pair is judged: thank you.";
  $("pair-view").hidden = !pair;
  showWhy($("pair-why"), pair && why);
  if (!pair) return;
  await Promise.all([loadImage($("pair-a"), pair[0].image), loadImage($("pair-b"), pair[1].image)]);
  $("pair-a-subject").textContent = pair[0].subject;
  $("pair-b-subject").textContent = pair[1].subject;
  document.body.dataset.item = `${pair[0].id}|${pair[1].id}`;
}

let toastTimer = 0;
function toast(text, bad = false) {
  const el = $("toast");
  el.textContent = text;
  el.classList.toggle("bad", bad);
  el.classList.add("shown");
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => el.classList.remove("shown"), bad ? 5000 : 1600);
}

function flash(button) {
  if (!button) return;
  button.classList.add("hit");
  setTimeout(() => button.classList.remove("hit"), 220);
}

// -- actions ---------------------------------------------------------------------------------
async function next(after) {
  const params = { rater: state.rater, mode: state.mode };
  if (state.mode === "pair") params.skip = String(state.skips);
  else if (after) params.after = after;
  const data = await api(`/api/next?${query(params)}`);
  showProgress(data.progress);
  if (state.mode === "pair") await showPair(data.pair, data.done, data.why);
  else await showItem(data.item, data.done, data.why);
}

const rate = (index) => run(async () => {
  if (!state.item || index >= state.tiers.length) return;
  flash($("tier-buttons").children[index]);
  const item = state.item;
  const data = await api("/api/rate", { item: item.id, rater: state.rater, tier: state.tiers[index] });
  keepReceipts([...receipts(), data.receipt]);
  await next(item.id);
});

const skip = () => run(async () => {
  if (state.mode === "pair") {
    state.skips += 1;
    await next();
  } else if (state.item) {
    await next(state.item.id);
  }
});

const undo = () => run(async () => {
  flash($(state.mode === "pair" ? "pair-undo" : "undo"));
  const stack = receipts();
  const receipt = stack.pop();
  if (!receipt) return toast("nothing to undo in this tab");
  keepReceipts(stack);
  const data = await api(`/api/undo?${query({})}`, { receipt });
  showProgress(data.progress);
  if (data.preference) {
    state.skips = 0;
    await showPair(data.pair, false, null);
    const said = { a: "left is better", b: "right is better", tie: "tie" }[data.preference.winner];
    toast(`undid "${said}"`);
  } else {
    await showItem(data.item, false);
    toast(`undid ${data.undone.tier}`);
  }
});

const prefer = (winner) => run(async () => {
  if (!state.pair) return;
  flash(document.querySelector(`[data-winner="${winner}"]`));
  const [a, b] = state.pair;
  const data = await api("/api/prefer", { a: a.id, b: b.id, rater: state.rater, winner });
  keepReceipts([...receipts(), data.receipt]);
  state.skips = 0;
  await next();
});

// -- keys, buttons, set-up ----------------------------------------------------------------------
function onKey(event) {
  if (event.ctrlKey || event.metaKey || event.altKey || $("who").open) return;
  if (event.target instanceof HTMLInputElement && event.target.type === "text") return;
  const key = event.key.toLowerCase();
  if (state.mode === "pair") {
    const winner = { a: "a", b: "b", t: "tie" }[key];
    if (winner) prefer(winner);
    else if (key === "s") skip();
    else if (key === "u") undo();
    else return;
  } else if (/^[1-9]$/.test(key) && Number(key) <= state.tiers.length) {
    rate(Number(key) - 1);
  } else if (key === "s") {
    skip();
  } else if (key === "u") {
    undo();
  } else {
    return;
  }
  event.preventDefault();
}

function buildTierButtons() {
  const box = $("tier-buttons");
  box.replaceChildren();
  state.tiers.forEach((tier, i) => {
    const button = document.createElement("button");
    button.type = "button";
    button.className = `tier tier-${i}`;
    const kbd = document.createElement("kbd");
    kbd.textContent = String(i + 1);
    button.append(kbd, ` ${tier}`);
    button.addEventListener("click", () => rate(i));
    box.append(button);
  });
}

function askRater() {
  const dialog = $("who");
  $("who-name").value = state.rater;
  dialog.showModal();
  $("who-name").focus();
}

async function setRater(name) {
  state.rater = name.trim();
  localStorage.setItem(RATER_KEY, state.rater);
  $("rater").textContent = state.rater;
  state.skips = 0;
  await run(() => next());
}

async function start() {
  const config = await api("/api/config");
  state.tiers = config.tiers;
  state.serverBlind = config.blind;
  state.active = config.active;
  $("active-badge").hidden = !state.active;
  document.body.dataset.mode = state.mode;
  document.querySelector(`.tabs [data-mode="${state.mode}"]`).classList.add("active");
  $("tier-view").hidden = state.mode !== "tier";
  $("tier-keys").hidden = state.mode !== "tier";
  $("pair-view").hidden = state.mode !== "pair";
  $("pair-keys").hidden = state.mode !== "pair";
  $("show-label").hidden = state.mode === "pair";   // pairs are always compared blind
  $("show").checked = show();
  $("show").disabled = state.serverBlind;
  if (state.serverBlind) $("show-label").title = "the server was started with --blind: ratings stay hidden";
  buildTierButtons();

  document.addEventListener("keydown", onKey);
  $("skip").addEventListener("click", skip);
  $("pair-skip").addEventListener("click", skip);
  $("undo").addEventListener("click", undo);
  $("pair-undo").addEventListener("click", undo);
  for (const b of document.querySelectorAll("[data-winner]")) {
    b.addEventListener("click", () => prefer(b.dataset.winner));
  }
  $("rater").addEventListener("click", askRater);
  $("show").addEventListener("change", (e) => {
    localStorage.setItem(SHOW_KEY, e.target.checked ? "1" : "0");
    const shown = state.mode === "pair" ? null : state.item;
    if (!shown) return;
    run(async () => showItem(
      await api(`/api/item/${encodeURIComponent(shown.id)}?${query({ rater: state.rater })}`), false));
  });
  $("who-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const name = $("who-name").value.trim();
    if (!name) return;
    $("who").close();
    setRater(name);
  });
  $("who").addEventListener("cancel", (e) => { if (!state.rater) e.preventDefault(); });

  if (state.rater) await setRater(state.rater);
  else {
    document.body.dataset.state = "ready";
    askRater();
  }
}

start().catch((err) => toast(`could not start: ${err.message}`, true));
