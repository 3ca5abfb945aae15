// brushwork's paint realm, part 2: runs after p5 and p5.brush; the page whose canvas is captured.
//
// It never runs sketch code. It opens the sketch realm (a sandboxed frame, made fresh for
// this render) and takes exactly one message from that frame's window: the harness's
// MessagePort, sent by realm.js before the sketch's first line runs. Everything else comes
// through that port, which the sketch cannot reach: findings, errors and blocked requests as
// they happen, then ONE display list. Any other message (on the window, a second port, a second
// list, an item whose shape is not the harness's) is `harness_tampering`. The list is
// validated (shape, sizes, op names, plain-data arguments, finite numbers within each op's
// bounds, a cap on length) and replayed with the real p5.brush on a canvas made here: allowed
// brush methods and the language's p5 statements, in the order the sketch made them, setup
// then the first draw. The painting is that replay and nothing else.
(function () {
  "use strict";
  const data = document.currentScript.dataset;
  const list = (name) => { const s = String(data[name] || ""); return s === "" ? [] : s.split(","); };
  const params = {
    seed: Number(data.seed || 0) >>> 0, size: Number(data.size || 600), frame: String(data.frame || ""),
    allow: list("allow"), brush: list("brush"), painting: list("painting"), replay: list("replay"),
    findings: list("findings"), maxOps: Number(data.maxOps || 50000), maxBytes: Number(data.maxBytes || 8000000),
    bounds: JSON.parse(data.bounds || "{}"),
  };
  const table = (names) => { const t = Object.create(null); for (const n of names) t[n] = true; return t; };
  const allowed = table(params.allow);
  const known = table(params.brush);
  const painting = table(params.painting);
  const replayed = table(params.replay);
  const findingIds = table(params.findings);

  const flags = [];
  const errors = [];
  const blocked = [];
  const counts = Object.create(null);
  const timings = { start: 0 };  // navigation start: performance.now()'s origin
  let paintCalls = 0;
  let clearedAfterPaint = 0;
  let replayedOps = 0;
  let sketchStage = "";
  let sketchFrames = 0;
  let displayList = null;  // what was replayed: {setup: [...ops], draw: [...ops] | null}
  const perId = Object.create(null);  // at most 20 flags of each id: one kind cannot crowd out another
  const flag = (id, detail) => {
    perId[id] = (perId[id] || 0) + 1;
    if (perId[id] <= 20) flags.push([id, String(detail).slice(0, 500)]);
  };
  const tampered = Object.create(null);
  const tamper = (what) => {
    if (tampered[what] === true) return;
    tampered[what] = true;
    flag("harness_tampering", "the sketch realm sent " + what);
  };

  // ---------------------------------------------------------------------------------------
  // The message: a JSON string, checked field by field. A message that is not a display list
  // was forged or mangled in the sketch realm (`harness_tampering`); a long one is `too_long`.
  // ---------------------------------------------------------------------------------------
  class Invalid extends Error {}
  // Ops are "brush.<method>" for p5.brush's API and bare names for p5 statements.
  const brushName = (op) => (op.startsWith("brush.") && known[op.slice(6)] === true ? op.slice(6) : null);
  const isText = (v, max) => typeof v === "string" && v.length <= max;
  const FORBIDDEN_KEYS = table(["__proto__", "constructor", "prototype"]);  // JSON.parse makes them own keys
  const rangeOf = (name, index) => {
    const own = params.bounds.ranges[name];
    const r = own ? own[String(index)] || own["*"] : null;
    return r || [-params.bounds.limit, params.bounds.limit];
  };
  const checkArg = (v, depth, budget, where, range) => {
    budget.n -= 1;
    if (budget.n < 0) throw new Invalid("too many argument values");
    if (typeof v === "number") {
      if (!Number.isFinite(v)) throw new Invalid(where + " " + String(v) + ", not a finite number");
      if (v < range[0] || v > range[1]) throw new Invalid(where + " " + String(v) + ", outside " + range[0] + " to " + range[1]);
      return;
    }
    if (v === null || typeof v === "boolean") return;
    if (typeof v === "string") { if (v.length > 2000) throw new Invalid("an argument string over 2000 characters"); return; }
    if (depth >= 3) throw new Invalid("arguments nested too deeply");
    if (Array.isArray(v)) { for (const x of v) checkArg(x, depth + 1, budget, where, range); return; }
    if (typeof v === "object") {
      for (const key of Object.keys(v)) {
        if (!isText(key, 40)) throw new Invalid("an option name that is not a short string");
        if (FORBIDDEN_KEYS[key] === true) throw new Invalid(where + " an object with a " + key + " key");
        checkArg(v[key], depth + 1, budget, where, range);
      }
      return;
    }
    throw new Invalid("an argument of type " + typeof v);
  };
  const checkOps = (ops, budget) => {
    if (!Array.isArray(ops)) throw new Invalid("a display list that is not a list");
    for (const op of ops) {
      if (!Array.isArray(op) || op.length < 1 || op.length > 12) throw new Invalid("an op that is not [name, ...args]");
      const name = op[0];
      if (!isText(name, 40) || (brushName(name) === null && replayed[name] !== true)) {
        throw new Invalid("an op that is neither a brush method nor a replayed p5 statement: " + String(name).slice(0, 40));
      }
      for (let i = 1; i < op.length; i += 1) checkArg(op[i], 0, budget, name + "(): argument " + i + " is", rangeOf(name, i));
    }
    return ops;
  };
  const validate = (text) => {
    if (typeof text !== "string") throw new Invalid("a message that is not text");
    if (text.length > params.maxBytes) return { tooLong: "the display list is " + text.length + " bytes (limit " + params.maxBytes + ")" };
    let m;
    try { m = JSON.parse(text); } catch (e) { throw new Invalid("a message that is not JSON"); }
    if (m === null || typeof m !== "object" || Array.isArray(m) || m.v !== 1) throw new Invalid("a message without version 1");
    if (m.overflow === true) return { tooLong: "the sketch made more than " + params.maxOps + " calls" };
    const budget = { n: params.maxOps * 8 };
    const setup = checkOps(m.setup || [], budget);
    const draw = m.draw === null || m.draw === undefined ? null : checkOps(m.draw, budget);
    if (setup.length + (draw ? draw.length : 0) > params.maxOps) return { tooLong: "more than " + params.maxOps + " calls" };
    const c = m.canvas;
    if (c !== null && c !== undefined && !(Array.isArray(c) && c.length === 3 && typeof c[0] === "number"
        && typeof c[1] === "number" && typeof c[2] === "string")) throw new Invalid("a malformed canvas");
    if (!(m.frameCount === undefined || (Number.isInteger(m.frameCount) && m.frameCount >= 0 && m.frameCount < 1e6))) {
      throw new Invalid("a malformed frame count");
    }
    return {
      setup: setup, draw: draw, canvas: c || null,
      stage: isText(m.stage, 10) ? m.stage : "",
      frameCount: m.frameCount || 0,
    };
  };
  // The port's items: [kind, a, b], each checked as the harness makes it.
  const ITEMS = {
    finding: (id, detail) => findingIds[id] === true && isText(detail, 500),
    error: (text, line) => isText(text, 2000) && (line === null || Number.isInteger(line)),
    blocked: (url, directive) => isText(url, 2000) && isText(directive, 200),
    list: (text, none) => typeof text === "string" && none === null,
  };
  const itemOk = (item) => Array.isArray(item) && item.length === 3 && typeof item[0] === "string"
    && Object.prototype.hasOwnProperty.call(ITEMS, item[0]) && ITEMS[item[0]](item[1], item[2]);

  // ---------------------------------------------------------------------------------------
  // The replay, in p5's instance mode: the real p5.brush on a canvas made here.
  // ---------------------------------------------------------------------------------------
  let resolveDone;
  const done = new Promise((resolve) => { resolveDone = resolve; });
  let finished = false;

  const run = (p, ops) => {
    for (const op of ops) {
      const method = brushName(op[0]);
      const name = method === null ? op[0] : method;
      const args = op.slice(1);
      if (method !== null) {
        counts[name] = (counts[name] || 0) + 1;
        if (allowed[name] !== true) continue;  // not replayed; the gate names it (disallowed_brush_method)
        if (painting[name] === true) paintCalls += 1;
        try { window.brush[name](...args); } catch (e) { errors.push(["brush." + name + "(): " + e.message, null]); }
      } else {
        if ((name === "background" || name === "clear") && paintCalls > 0) {
          clearedAfterPaint += 1;
          flag("painted_then_cleared", name + "() after painting");
        }
        try { p[name](...args); } catch (e) { errors.push([name + "(): " + e.message, null]); }
      }
      replayedOps += 1;
    }
  };

  const capture = (p, stage) => {
    if (finished) return;
    finished = true;
    timings.drawn = performance.now();
    const result = { stage: stage, frameCount: sketchFrames, dataUrl: null, width: 0, height: 0 };
    const renderer = p ? p._renderer : null;
    const canvas = renderer ? renderer.canvas || null : null;
    if (canvas !== null) {
      try {
        const gl = renderer.GL;
        if (gl && renderer.isP3D) gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(4));
        timings.flushed = performance.now();
        result.width = canvas.width;
        result.height = canvas.height;
        result.dataUrl = canvas.toDataURL("image/png");
        timings.encoded = performance.now();
      } catch (e) { errors.push(["capture: " + e.message, null]); }
    }
    resolveDone(result);
  };

  p5.registerAddon(function (p5Class, fn, lifecycles) {
    // Registered after p5.brush: these run after p5.brush's own hooks, which paint.
    lifecycles.presetup = function () {
      this.randomSeed(params.seed);
      this.noiseSeed(params.seed);
      timings.setup = performance.now();
    };
    lifecycles.postsetup = function () {
      timings.setupDone = performance.now();
      const p = this;
      if (typeof p.draw !== "function") setTimeout(() => capture(p, "setup"), 0);
    };
    lifecycles.postdraw = function () {
      const p = this;
      setTimeout(() => capture(p, "draw"), 0);
    };
  });

  const replay = (list) => {
    timings.received = performance.now();
    displayList = { setup: list.setup, draw: list.draw };
    sketchStage = list.stage;
    sketchFrames = list.frameCount;
    if (list.canvas === null) {
      flag("canvas_size", "the sketch never called createCanvas(" + params.size + ", " + params.size + ", WEBGL)");
      capture(null, list.stage || "error");
      return;
    }
    new p5((p) => {
      p.setup = () => {
        p.pixelDensity(1);
        p.createCanvas(params.size, params.size, p.WEBGL);
        run(p, list.setup);
        if (list.draw === null) p.noLoop();
      };
      if (list.draw !== null) {
        p.draw = () => {
          p.noLoop();
          run(p, list.draw);
        };
      }
    });
  };

  const receive = (text) => {
    let list;
    try {
      list = validate(text);
    } catch (e) {
      if (!(e instanceof Invalid)) throw e;
      tamper(e.message);
      capture(null, "error");
      return;
    }
    if (list.tooLong) {
      flag("too_long", list.tooLong);
      capture(null, "error");
      return;
    }
    replay(list);
  };

  // ---------------------------------------------------------------------------------------
  // The sketch realm: a fresh sandboxed frame (scripts only: opaque origin, no storage, no
  // pop-ups, no top navigation). Its first message is the harness's port; a second page loaded
  // in the frame means the sketch navigated it.
  // ---------------------------------------------------------------------------------------
  const frame = document.createElement("iframe");
  frame.setAttribute("sandbox", "allow-scripts");
  frame.setAttribute("referrerpolicy", "no-referrer");
  frame.setAttribute("style", "position:fixed;left:0;top:0;width:1px;height:1px;border:0");
  let port = null;
  let answered = false;
  let loads = 0;
  const close = () => { answered = true; frame.remove(); };
  const onItem = (e) => {
    const item = e.data;
    if (answered) return;
    if (!itemOk(item)) { tamper("an item that is not the harness's on its channel"); return; }
    const [kind, a, b] = item;
    if (kind === "finding") flag(a, b);
    else if (kind === "error") { if (errors.length < 40) errors.push([a, b]); }
    else if (kind === "blocked") { if (blocked.length < 40) blocked.push([a, b]); }
    else { close(); receive(a); }
  };
  window.addEventListener("message", (e) => {
    const first = port === null && e.source === frame.contentWindow && e.data === "brushwork:port"
      && e.ports.length === 1;
    if (!first) { tamper("a message outside the harness's channel (the window takes one, the harness's port)"); return; }
    port = e.ports[0];
    port.onmessage = onItem;
  });
  frame.addEventListener("load", () => {
    loads += 1;
    if (loads > 1 && !answered) {
      close();
      flag("navigation", "the sketch navigated its frame away");
      capture(null, "error");
    }
  });
  frame.src = params.frame;
  document.body.appendChild(frame);

  // What Python reads at the end: the PNG, what was replayed, and what the sketch realm reported.
  window.__bwResult = () => done.then((result) => JSON.stringify({
    result: result,
    events: {
      calls: counts, paintCalls: paintCalls, clearedAfterPaint: clearedAfterPaint, replayed: replayedOps,
      sketchStage: sketchStage, flags: flags, errors: errors, blocked: blocked, timings: timings,
      displayList: displayList,
    },
  }));
})();
