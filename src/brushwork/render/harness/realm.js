// brushwork's sketch realm: runs in the sandboxed frame, after seed.js and p5, before the sketch.
//
// The sketch runs here, in a frame of its own (opaque origin, no network, no storage) that
// holds no reference to the painting. It gets real p5 for maths, random / noise, colours,
// vectors and width / height, and a *recording* `brush`: every p5.brush method records its
// call instead of painting. The language's p5 statements (translate, push, background…) run
// and are recorded too. Every argument is reduced to data here: finite numbers within the
// bounds the page names, strings, booleans, arrays and plain objects of those; a p5.Color
// becomes its CSS colour string.
//
// The channel: before the sketch runs, this script makes a MessageChannel, keeps one port in
// its closure and sends the other to the paint realm as the frame's first message (the sketch
// has not run, so that message is the harness's). From then on the paint realm listens to the
// port alone, and any message on the window is `harness_tampering`. Findings, errors and
// blocked requests leave through the port the moment they happen, so nothing the sketch does
// later can take them back; when setup (awaited if async) and the first draw have run, the
// display list follows, once. The sketch shares this realm and may rewrite any of it, which can
// change the display list, but cannot reach the port, and a list can only ask the paint realm
// for allowed calls with bounded plain-data arguments.
(function () {
  "use strict";
  const tag = document.currentScript;
  const data = tag ? tag.dataset : {};
  const list = (name) => { const s = String(data[name] || ""); return s === "" ? [] : s.split(","); };
  const seed = Number(data.seed || 0) >>> 0;
  const size = Number(data.size || 600);
  const MAX_OPS = Number(data.maxOps || 50000);
  const bounds = JSON.parse(data.bounds || "{}");
  const stringify = JSON.stringify;
  const isFinite = Number.isFinite;
  const keysOf = Object.keys;
  const prototypeOf = Object.getPrototypeOf;
  const objectPrototype = Object.prototype;
  const isArray = Array.isArray;
  const p5Class = window.p5;

  const channel = new MessageChannel();
  const send = channel.port1.postMessage.bind(channel.port1);
  window.parent.postMessage("brushwork:port", "*", [channel.port2]);

  const phases = { setup: [], draw: [] };
  let phase = "setup";
  let ops = 0;
  let overflow = false;
  let canvas = null;
  let sent = false;
  let closed = false;  // after the first frame: nothing more is recorded
  const seen = Object.create(null);
  const perId = Object.create(null);
  // Each finding, error and blocked request leaves at once, through the port.
  const report = (kind, a, b) => { send([kind, a, b]); };
  // At most 20 of each id: a flood of one kind cannot crowd out another.
  const finding = (id, detail) => {
    const key = id + "\u0000" + detail;
    if (seen[key] === true || (perId[id] || 0) >= 20) return;
    seen[key] = true;
    perId[id] = (perId[id] || 0) + 1;
    report("finding", id, detail);
  };

  // ---------------------------------------------------------------------------------------
  // Arguments become data. Anything else is a finding, and the call is not recorded.
  // ---------------------------------------------------------------------------------------
  const NOT_DATA = {};
  const FORBIDDEN_KEYS = Object.create(null);  // plain data has no keys that reach a prototype
  for (const key of ["__proto__", "constructor", "prototype"]) FORBIDDEN_KEYS[key] = true;
  let why = "";  // what reduce() refused, for the finding
  const rangeOf = (name, index) => {
    const own = bounds.ranges[name];
    const r = own ? own[String(index)] || own["*"] : null;
    return r || [-bounds.limit, bounds.limit];
  };
  const reduce = (v, depth, range) => {
    const type = typeof v;
    if (type === "number") {
      if (!isFinite(v)) { why = String(v) + ", not a finite number"; return NOT_DATA; }
      if (v < range[0] || v > range[1]) { why = String(v) + ", outside " + range[0] + " to " + range[1]; return NOT_DATA; }
      return v;
    }
    if (type === "boolean" || type === "string" || v === null || v === undefined) return v === undefined ? null : v;
    if (type !== "object") { why = kindOf(v); return NOT_DATA; }
    if (p5Class && v instanceof p5Class.Color) return String(v);
    if (depth >= 3) { why = "nested too deeply"; return NOT_DATA; }
    if (isArray(v)) {
      const out = [];
      for (let i = 0; i < v.length; i += 1) {
        const r = reduce(v[i], depth + 1, range);
        if (r === NOT_DATA) return NOT_DATA;
        out[i] = r;
      }
      return out;
    }
    const proto = prototypeOf(v);
    if (proto !== objectPrototype && proto !== null) { why = kindOf(v); return NOT_DATA; }
    const out = Object.create(null);
    for (const key of keysOf(v)) {
      if (FORBIDDEN_KEYS[key] === true) { why = "an object with a " + key + " key"; return NOT_DATA; }
      const r = reduce(v[key], depth + 1, range);
      if (r === NOT_DATA) return NOT_DATA;
      out[key] = r;
    }
    return out;
  };
  const kindOf = (v) => {
    if (typeof v === "function") return "a function";
    if (p5Class && v instanceof p5Class.Vector) return "a p5.Vector (pass its .x and .y)";
    const name = v && v.constructor && typeof v.constructor.name === "string" ? v.constructor.name : "";
    return name ? "a " + name : "an object";
  };
  const reduced = (name, v, i) => {
    why = "";
    try {
      return reduce(v, 0, rangeOf(name, i + 1));
    } catch (e) {  // a getter of the sketch's threw
      why = "an object that could not be read";
      return NOT_DATA;
    }
  };
  const record = (name, args, label) => {
    if (closed) return;
    if (ops >= MAX_OPS) { overflow = true; return; }
    const op = [name];
    for (let i = 0; i < args.length; i += 1) {
      const r = reduced(name, args[i], i);
      if (r === NOT_DATA) {
        finding("unsupported_argument", label + "(): argument " + (i + 1) + " is " + why
                + "; pass numbers (finite, within bounds), strings, colours, or arrays and plain objects of those");
        return;
      }
      op[i + 1] = r;
    }
    const target = phases[phase];
    if (target === undefined) return;
    target[target.length] = op;
    ops += 1;
  };

  // ---------------------------------------------------------------------------------------
  // The recording brush: p5.brush's whole API by name (the paint realm decides which names
  // it replays: the allow-list). No return values: nothing of the library reaches the sketch.
  // ---------------------------------------------------------------------------------------
  const brush = Object.create(null);
  for (const name of list("brush")) {
    brush[name] = function () { record("brush." + name, arguments, "brush." + name); };
  }
  Object.defineProperty(window, "brush", { value: Object.freeze(brush), writable: false, configurable: false });

  // ---------------------------------------------------------------------------------------
  // p5, once it has bound its functions to `window` (global mode), before the sketch's setup:
  // statements run and are recorded; drawing, text, pixels, DOM and files are findings that
  // do nothing; everything else (maths, colours, vectors) is p5's own.
  // ---------------------------------------------------------------------------------------
  const CATEGORIES = ["p5_drawing", "text_drawing", "raw_drawing", "unlisted_call", "external_access"];
  const ofP5 = (name) => p5Class && typeof p5Class.prototype[name] === "function";
  // A name the sketch declared at the top level itself (`function line() {…}`) is its own.
  const setGlobal = (name, value) => {
    const d = Object.getOwnPropertyDescriptor(window, name);
    if (d && !d.configurable) return false;
    Object.defineProperty(window, name, { value: value, writable: true, configurable: true, enumerable: true });
    return true;
  };
  const isFunction = (name) => {  // an opaque origin's storage getters throw
    try { return typeof window[name] === "function"; } catch (e) { return false; }
  };
  const nameOnly = (id, applies) => {  // each function of the category becomes a finding by name
    for (const name of list(id.replace(/_(\w)/g, (m, c) => c.toUpperCase()))) {  // data-p5-drawing: p5Drawing
      if (isFunction(name) && applies(name)) setGlobal(name, function () { finding(id, name + "()"); });
    }
  };
  const install = () => {
    for (const name of list("statements")) {
      const original = window[name];
      if (typeof original !== "function") continue;
      setGlobal(name, function () {
        record(name, arguments, name);
        original.apply(this, arguments);
      });
    }
    for (const id of CATEGORIES) if (id !== "external_access") nameOnly(id, ofP5);
    for (const name of list("noop")) {
      if (isFunction(name)) setGlobal(name, function () {});
    }
    const createCanvas = window.createCanvas;
    setGlobal("createCanvas", function (w, h, mode) {
      if (canvas !== null) finding("canvas_replaced", "createCanvas called twice");
      if (w !== size || h !== size) {
        finding("canvas_size", "createCanvas(" + String(w) + ", " + String(h) + ")");
        throw new Error("brushwork: canvas must be " + size + "x" + size);
      }
      if (mode !== window.WEBGL) finding("not_webgl", "canvas mode " + (typeof mode === "string" ? mode : typeof mode));
      canvas = [w, h, typeof mode === "string" ? mode : ""];
      createCanvas.call(this, w, h);  // a small 2D canvas here: the painting happens in the paint realm
    });
  };

  // The browser's ways out exist before the sketch runs (its top level may call them): named now.
  nameOnly("external_access", () => true);

  const finish = (stage, p) => {
    if (sent) return;
    sent = true;
    closed = true;
    try { if (p) p.noLoop(); } catch (e) { /* the sketch may have broken p5 */ }
    const message = {
      v: 1, stage: stage, frameCount: p ? p.frameCount : 0, canvas: canvas, setup: phases.setup,
      draw: stage === "draw" ? phases.draw : null, overflow: overflow,
    };
    let text;
    try { text = stringify(message); } catch (e) { text = stringify({ v: 1, stage: "error", canvas: null }); }
    send(["list", text, null]);
  };

  p5Class.registerAddon(function (p5, fn, lifecycles) {
    lifecycles.presetup = function () {
      this.randomSeed(seed);
      this.noiseSeed(seed);
      install();
    };
    lifecycles.postsetup = function () {
      phase = "between";  // p5's own calls before the first frame (its resetMatrix) are not the sketch's
      const p = this;
      if (typeof window.draw !== "function") setTimeout(() => finish("setup", p), 0);
    };
    lifecycles.predraw = function () { phase = "draw"; };
    lifecycles.postdraw = function () {
      closed = true;
      const p = this;
      try { p.noLoop(); } catch (e) { /* the sketch may have broken p5 */ }
      setTimeout(() => finish("draw", p), 0);  // after what the frame set off (a blocked request's report)
    };
  });

  // An error that stops p5 before its first frame ends the sketch's turn with what it recorded.
  // These listeners are the window's first, in the capture phase: a listener the sketch adds
  // later runs after them, and cannot stop them.
  const sketchLine = (file, line) => (typeof file === "string" && file.endsWith("/sketch.js") ? line : null);
  const first = (type, listener) => window.addEventListener(type, listener, true);
  let errors = 0;
  const error = (text, line) => {
    if (errors < 20) report("error", String(text).slice(0, 2000), line);
    errors += 1;
    setTimeout(() => finish("error", p5Class.instance), 50);
  };
  first("error", (e) => {
    if (e.target === window) error(e.message || "error", sketchLine(e.filename, e.lineno));
  });
  first("unhandledrejection", (e) => {
    const reason = e.reason;
    const text = reason && typeof reason.message === "string" ? reason.message : String(reason);
    const at = reason && typeof reason.stack === "string" ? /\/sketch\.js:(\d+)/.exec(reason.stack) : null;
    error("Uncaught (in promise) " + text.slice(0, 2000), at ? Number(at[1]) : null);
  });
  // Navigating the frame away ends the sketch's turn at once (and is a finding).
  // A navigation the sketch starts is named when it starts (the message may leave before it lands).
  first("beforeunload", () => finding("navigation", "the sketch navigated its frame away"));
  first("pagehide", () => {
    finding("navigation", "the sketch navigated its frame away");
    finish("error", null);
  });
  let blocked = 0;
  first("securitypolicyviolation", (e) => {
    if (blocked < 20) report("blocked", String(e.blockedURI || "(inline)"), String(e.violatedDirective || ""));
    blocked += 1;
  });
})();
