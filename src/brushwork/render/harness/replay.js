// brushwork's paint realm, part 2: runs after p5 and p5.brush; the page whose canvas is captured.
//
// It never runs sketch code. It opens the sketch realm (a sandboxed frame, made fresh for
// this render), takes the ONE message that frame sends, validates it (shape, sizes, op
// names, argument types, a cap on length), and replays the display list with the real
// p5.brush on a canvas it creates itself: allowed brush methods and the language's p5
// statements, with primitive arguments, in the order the sketch made them, setup then the
// first draw. The painting is that replay and nothing else.
(function () {
  "use strict";
  const data = document.currentScript.dataset;
  const list = (name) => { const s = String(data[name] || ""); return s === "" ? [] : s.split(","); };
  const params = {
    seed: Number(data.seed || 0) >>> 0, size: Number(data.size || 600), frame: String(data.frame || ""),
    allow: list("allow"), brush: list("brush"), painting: list("painting"), replay: list("replay"),
    findings: list("findings"), maxOps: Number(data.maxOps || 50000), maxBytes: Number(data.maxBytes || 8000000),
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
  const flag = (id, detail) => { if (flags.length < 200) flags.push([id, String(detail).slice(0, 500)]); };

  // ---------------------------------------------------------------------------------------
  // The message: a JSON string, checked field by field. A message that is not a display list
  // was forged or mangled in the sketch realm (`harness_tampering`); a long one is `too_long`.
  // ---------------------------------------------------------------------------------------
  class Invalid extends Error {}
  // Ops are "brush.<method>" for p5.brush's API and bare names for p5 statements.
  const brushName = (op) => (op.startsWith("brush.") && known[op.slice(6)] === true ? op.slice(6) : null);
  const isText = (v, max) => typeof v === "string" && v.length <= max;
  const checkArg = (v, depth, budget) => {
    budget.n -= 1;
    if (budget.n < 0) throw new Invalid("too many argument values");
    if (v === null || typeof v === "number" || typeof v === "boolean") return;
    if (typeof v === "string") { if (v.length > 2000) throw new Invalid("an argument string over 2000 characters"); return; }
    if (depth >= 3) throw new Invalid("arguments nested too deeply");
    if (Array.isArray(v)) { for (const x of v) checkArg(x, depth + 1, budget); return; }
    if (typeof v === "object") {
      for (const key of Object.keys(v)) {
        if (!isText(key, 40)) throw new Invalid("an option name that is not a short string");
        checkArg(v[key], depth + 1, budget);
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
      for (let i = 1; i < op.length; i += 1) checkArg(op[i], 0, budget);
    }
    return ops;
  };
  const pairs = (v, limit, check) => {
    if (!Array.isArray(v) || v.length > limit) throw new Invalid("a malformed list of findings");
    for (const item of v) if (!Array.isArray(item) || item.length !== 2 || !check(item)) throw new Invalid("a malformed finding");
    return v;
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
    return {
      setup: setup, draw: draw, canvas: c || null,
      stage: isText(m.stage, 10) ? m.stage : "",
      frameCount: typeof m.frameCount === "number" ? m.frameCount : 0,
      findings: pairs(m.findings || [], 200, (f) => findingIds[f[0]] === true && isText(f[1], 500)),
      errors: pairs(m.errors || [], 20, (e) => isText(e[0], 2000) && (e[1] === null || Number.isInteger(e[1]))),
      blocked: pairs(m.blocked || [], 20, (b) => isText(b[0], 2000) && isText(b[1], 200)),
      ms: typeof m.ms === "number" ? m.ms : null,
    };
  };

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
    for (const f of list.findings) flag(f[0], f[1]);
    for (const e of list.errors) errors.push(e);
    for (const b of list.blocked) blocked.push(b);
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
      flag("harness_tampering", "the sketch realm sent " + e.message);
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
  // pop-ups, no top navigation). Its first message is its answer; a second page loaded in
  // the frame means the sketch navigated it.
  // ---------------------------------------------------------------------------------------
  const frame = document.createElement("iframe");
  frame.setAttribute("sandbox", "allow-scripts");
  frame.setAttribute("referrerpolicy", "no-referrer");
  frame.setAttribute("style", "position:fixed;left:0;top:0;width:1px;height:1px;border:0");
  let answered = false;
  let loads = 0;
  const close = () => { answered = true; frame.remove(); };
  window.addEventListener("message", (e) => {
    if (answered || e.source !== frame.contentWindow) return;
    close();
    receive(e.data);
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
