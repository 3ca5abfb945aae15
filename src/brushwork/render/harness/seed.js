// brushwork harness, part 1: the first script on the page, before p5 and p5.brush load.
//
// - Seeds Math.random (p5.brush captures its seeds from it at load time).
// - Takes the evidence channel: a CDP binding the renderer installs on every page. It is kept
//   in this closure and removed from `window`, so only the harness can send; every flag,
//   error, blocked request and DOM change goes to Python the moment it happens, where the
//   page cannot take it back.
// - Owns attribution: `whoCalls()` reads V8's structured call stack (through an
//   `Error.prepareStackTrace` that is locked before any other script runs) and says whether
//   a call comes from the sketch's own code.
// - Captures every built-in it relies on, so later scripts cannot rewrite them under it.
// Parameters come from this script tag's data attributes; parts 2 and 3 (harness.js,
// guard.js) receive the kit through a hand-off that guard.js deletes before the sketch loads.
(function () {
  "use strict";
  const apply = Reflect.apply;
  const construct = Reflect.construct;
  const defineProperty = Object.defineProperty;
  const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const getOwnPropertyNames = Object.getOwnPropertyNames;
  const getPrototypeOf = Object.getPrototypeOf;
  const create = Object.create;
  const freeze = Object.freeze;
  const stringify = JSON.stringify;
  const ErrorCtor = Error;
  const captureStackTrace = Error.captureStackTrace;
  const errorToString = Error.prototype.toString;
  const perf = window.performance;
  const perfNow = Performance.prototype.now;
  const now = () => apply(perfNow, perf, []);
  const listen = EventTarget.prototype.addEventListener;
  const getter = (proto, name) => getOwnPropertyDescriptor(proto, name).get;
  const lock = (obj, name, value) => defineProperty(obj, name, { value: value, writable: false, configurable: false });

  const binding = window.__bwSend;
  delete window.__bwSend;

  const tag = document.currentScript;
  const data = tag ? tag.dataset : {};
  const param = (name) => String(data[name] || "");
  const list = (name) => { const out = param(name).split(","); return out[0] === "" ? [] : out; };
  const seed = Number(param("seed") || 0) >>> 0;

  // mulberry32: small, fast, good enough for reproducible painting noise.
  let state = seed || 0x9e3779b9;
  const seeded = function random() {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  lock(Math, "random", seeded);
  // The libraries read `Math.*` at every call: the global itself may not be swapped.
  for (const name of ["Math", "JSON", "Reflect", "Error"]) lock(window, name, window[name]);

  // ---------------------------------------------------------------------------------
  // The evidence channel. Messages are built by string concatenation of primitives only
  // (JSON.stringify of a string or number consults no toJSON hook), deduplicated, and
  // rate-limited per kind; the first of each kind always goes out.
  // ---------------------------------------------------------------------------------
  const PER_KIND = 50;
  const sent = create(null);
  const perKind = create(null);
  const q = (v) => (typeof v === "string" || typeof v === "number" ? stringify(v) : "null");
  const send = (kind, a, b, c, d) => {
    const key = kind + "\u0000" + a + "\u0000" + b;
    if (sent[key] === true) return;
    const n = perKind[kind] || 0;
    if (n >= PER_KIND) return;
    sent[key] = true;
    perKind[kind] = n + 1;
    if (typeof binding === "function") {
      apply(binding, undefined, ["{\"k\":" + q(kind) + ",\"a\":" + q(a) + ",\"b\":" + q(b) + ",\"c\":" + q(c) + ",\"d\":" + q(d) + "}"]);
    }
  };
  const str = (v) => (typeof v === "string" ? v : typeof v === "number" ? "" + v : "");
  const flag = (id, detail) => send("flag", id, detail);
  send("hello", location.pathname, seed);

  // ---------------------------------------------------------------------------------
  // Attribution. A call is the sketch's when the nearest caller frame that is neither the
  // harness's nor a built-in's belongs to the sketch (verdict "direct"), or when the sketch
  // entered library code through a path the harness does not watch and that code made the
  // call ("indirect"), or when no page script is on the stack at all (a callback queued by
  // someone: "orphan"). Frames are told apart by their script URL (V8's getFileName, which
  // a `//# sourceURL` comment cannot change); anything that is not the harness or a
  // library counts as the sketch. Only a library frame can clear a call.
  // ---------------------------------------------------------------------------------
  const STACK_LIMIT = 120;
  const SKETCH_CALL = "__bwSketchCall";  // harness trampolines that run on the sketch's behalf
  const FILES = create(null);
  const origin = location.origin;
  if (tag && tag.src) FILES[tag.src] = "h";
  for (const path of list("harness")) FILES[origin + path] = "h";
  for (const path of list("lib")) FILES[origin + path] = "l";

  let probing = false;
  let site = null;  // CallSite methods, captured from the first stack this script takes
  const kind = (cs) => {
    const file = apply(site.getFileName, cs, []);
    if (!file) return apply(site.isEval, cs, []) ? "s" : "n";
    const k = FILES[file];
    if (k === "h") return apply(site.getFunctionName, cs, []) === SKETCH_CALL ? "s" : "h";
    return k === "l" ? "l" : "s";
  };
  const verdict = (cs) => {
    const n = cs.length;
    let i = 0;
    let k = "h";
    while (i < n && ((k = kind(cs[i])) === "h" || k === "n")) i += 1;
    if (i < n && k === "s") return "direct";
    let prev = null;
    for (; i < n; i += 1) {
      k = kind(cs[i]);
      if (k === "s") return prev === "l" ? "indirect" : "library";
      if (k !== "n") prev = k;
    }
    if (n >= STACK_LIMIT) return "deep";
    return prev === null ? "orphan" : "library";
  };
  const formatDefault = (error, cs) => {
    let out;
    try { out = apply(errorToString, error, []); } catch (e) { out = "Error"; }
    for (let i = 0; i < cs.length; i += 1) out += "\n    at " + apply(site.toString, cs[i], []);
    return out;
  };
  const prepare = (error, cs) => {
    if (site === null) {
      const proto = getPrototypeOf(cs[0]);
      site = { getFileName: proto.getFileName, isEval: proto.isEval, getFunctionName: proto.getFunctionName,
               toString: proto.toString };
    }
    return probing ? verdict(cs) : formatDefault(error, cs);
  };
  lock(ErrorCtor, "prepareStackTrace", prepare);
  lock(ErrorCtor, "stackTraceLimit", STACK_LIMIT);
  lock(ErrorCtor, "captureStackTrace", captureStackTrace);
  let probes = 0;
  // "library", or why the sketch is responsible: "direct", "indirect", "orphan", "deep".
  // Inlined into a page by someone else, without the script URLs, nothing can be told apart:
  // the page just paints (brushwork's own pages always name them).
  const attributing = list("lib").length > 0;
  // Trust: the harness marks library work it has made free of the sketch's code (a brush call
  // whose arguments it made plain, p5.brush's own frame hooks) while the built-ins and p5's
  // methods are intact; no sketch code can run there, so watched calls skip the stack. A
  // function the sketch handed over runs through a trampoline, which lifts the trust.
  let trusted = 0;
  const trusting = (f, self, args) => {
    trusted += 1;
    try { return apply(f, self, args); } finally { trusted -= 1; }
  };
  const whoCalls = () => {
    if (!attributing || trusted > 0) return "library";
    probes += 1;
    probing = true;
    try {
      const holder = create(null);
      captureStackTrace(holder);
      return holder.stack;
    } finally {
      probing = false;
    }
  };
  whoCalls();  // captures the CallSite methods now, before anything else can run

  // Wrappers shared by harness.js and guard.js. A watched function flags when the sketch
  // calls it, and what it hands the sketch is "held": the methods of library classes that
  // p5 and p5.brush call thousands of times are only watched on objects the sketch holds.
  const HOW = create(null);
  HOW.direct = "";
  HOW.indirect = " (through library code the sketch entered on its own)";
  HOW.orphan = " (from a callback outside any script)";
  HOW.deep = " (under a stack too deep to attribute)";
  const byTheSketch = (who) => who !== "library";
  const flagCall = (id, what, who) => flag(id, what + " called by the sketch" + (HOW[who] || ""));
  const held = new WeakSet();
  const wsHas = WeakSet.prototype.has;
  const wsAdd = WeakSet.prototype.add;
  const isObject = (v) => v !== null && (typeof v === "object" || typeof v === "function");
  const hold = (v) => { if (isObject(v)) apply(wsAdd, held, [v]); return v; };
  const watchedCall = (original, id, what, orphanOk) => function () {
    const who = whoCalls();
    if (!byTheSketch(who) || (orphanOk === true && who === "orphan")) return apply(original, this, arguments);
    flagCall(id, what, who);
    return hold(apply(original, this, arguments));
  };
  const heldCall = (original, id, what) => function () {
    if (!isObject(this) || !apply(wsHas, held, [this])) return apply(original, this, arguments);
    const who = whoCalls();
    if (!byTheSketch(who)) return apply(original, this, arguments);
    flagCall(id, what, who);
    return hold(apply(original, this, arguments));
  };
  // The trampoline for functions the sketch hands to the engine or the libraries: its frame,
  // named `__bwSketchCall`, reads as the sketch's own (see `kind`).
  const trampoline = (target) => {
    const __bwSketchCall = function () {
      const saved = trusted;
      trusted = 0;
      try {
        return new.target ? construct(target, arguments, new.target) : apply(target, this, arguments);
      } finally {
        trusted = saved;
      }
    };
    return freeze(__bwSketchCall);  // its name is what `kind` reads
  };
  // guard.js installs the check of the built-ins it could not lock (once); "" while intact.
  let builtinsCheck = null;
  const builtinsChanged = () => (builtinsCheck === null ? "" : builtinsCheck());
  const setBuiltinsCheck = (check) => { if (builtinsCheck === null) builtinsCheck = check; };
  const wrapEach = (holder, names, make) => {
    for (const name of names) {
      const d = getOwnPropertyDescriptor(holder, name);
      if (!d || name === "constructor" || typeof d.value !== "function" || !d.configurable) continue;
      d.value = make(d.value, name);
      defineProperty(holder, name, d);
    }
  };

  // ---------------------------------------------------------------------------------
  // Monitors: errors, CSP violations, DOM changes. Registered first, in the capture phase
  // of `window`, so no later listener can stop them; every accessor they use is captured.
  // ---------------------------------------------------------------------------------
  const errorMessage = getter(ErrorEvent.prototype, "message");
  const errorLine = getter(ErrorEvent.prototype, "lineno");
  const errorFile = getter(ErrorEvent.prototype, "filename");
  const rejectionReason = getter(PromiseRejectionEvent.prototype, "reason");
  const cspURI = getter(SecurityPolicyViolationEvent.prototype, "blockedURI");
  const cspDirective = getter(SecurityPolicyViolationEvent.prototype, "effectiveDirective");
  const cspLine = getter(SecurityPolicyViolationEvent.prototype, "lineNumber");
  const lastPart = (s) => { let j = s.length; while (j > 0 && s[j - 1] !== "/") j -= 1; return s.slice(j); };
  const onError = (e) => {
    send("error", str(apply(errorMessage, e, [])) || "error", apply(errorLine, e, []) || null,
         lastPart(str(apply(errorFile, e, []))));
  };
  const onRejection = (e) => {
    let message = "";
    try {
      const reason = apply(rejectionReason, e, []);
      if (reason !== null && typeof reason === "object") {
        const d = getOwnPropertyDescriptor(reason, "message") || getOwnPropertyDescriptor(getPrototypeOf(reason) || {}, "message");
        message = d ? str(d.value) : "";
      } else {
        message = str(reason) || typeof reason;
      }
    } catch (err) { /* a hostile reason still counts as a rejection */ }
    send("error", "unhandled rejection: " + message, null, "");
  };
  const onViolation = (e) => {
    send("blocked", str(apply(cspURI, e, [])), str(apply(cspDirective, e, [])), apply(cspLine, e, []) || null);
  };
  const capture = create(null);
  capture.capture = true;
  apply(listen, window, ["error", onError, capture]);
  apply(listen, window, ["unhandledrejection", onRejection, capture]);
  apply(listen, window, ["securitypolicyviolation", onViolation, capture]);

  // p5 adds a <main> holding its canvases, and a loading indicator while setup runs (the
  // harness names it at presetup); the page's own script tags arrive one by one after this
  // one. Any other element, a second copy of a script, or text, is the sketch's.
  const ALLOWED_TAGS = create(null);
  for (const name of ["CANVAS", "MAIN"]) ALLOWED_TAGS[name] = true;
  const pageScripts = create(null);
  for (const path of list("scripts")) pageScripts[origin + path] = true;
  const expected = new WeakSet();
  const isExpected = WeakSet.prototype.has;
  const expect = WeakSet.prototype.add;
  const addedNodes = getter(MutationRecord.prototype, "addedNodes");
  const listLength = getter(NodeList.prototype, "length");
  const listItem = NodeList.prototype.item;
  const nodeType = getter(Node.prototype, "nodeType");
  const nodeName = getter(Node.prototype, "nodeName");
  const textContent = getter(Node.prototype, "textContent");
  const scriptSrc = getter(HTMLScriptElement.prototype, "src");
  const trim = String.prototype.trim;
  const toLower = String.prototype.toLowerCase;
  const observe = MutationObserver.prototype.observe;
  const allowed = (node, name) => {
    if (ALLOWED_TAGS[name] === true || apply(isExpected, expected, [node])) return true;
    if (name !== "SCRIPT") return false;
    const src = str(apply(scriptSrc, node, []));
    if (pageScripts[src] !== true) return false;
    pageScripts[src] = false;  // each of the page's scripts once
    return true;
  };
  const observer = new MutationObserver((records) => {
    for (let i = 0; i < records.length; i += 1) {
      const nodes = apply(addedNodes, records[i], []);
      const count = apply(listLength, nodes, []);
      for (let j = 0; j < count; j += 1) {
        const node = apply(listItem, nodes, [j]);
        const type = apply(nodeType, node, []);
        const name = apply(nodeName, node, []);
        if (type === 1 && !allowed(node, name)) send("dom", "added <" + apply(toLower, name, []) + ">");
        if (type === 3 && apply(trim, str(apply(textContent, node, [])), []) !== "") send("dom", "added text");
      }
    }
  });
  const expectNode = (node) => { if (node !== null && typeof node === "object") apply(expect, expected, [node]); };
  const observeAll = (root) => {
    const options = create(null);
    options.childList = true;
    options.subtree = true;
    apply(observe, observer, [root, options]);
  };

  // ---------------------------------------------------------------------------------
  // The hand-off to harness.js and guard.js (deleted by guard.js, before the sketch loads).
  // ---------------------------------------------------------------------------------
  const kit = freeze({
    send: send, flag: flag, whoCalls: whoCalls, now: now, str: str, observeAll: observeAll, expectNode: expectNode,
    probes: () => probes, byTheSketch: byTheSketch, flagCall: flagCall, hold: hold, isObject: isObject,
    watchedCall: watchedCall, heldCall: heldCall, wrapEach: wrapEach, builtinsChanged: builtinsChanged,
    setBuiltinsCheck: setBuiltinsCheck, trusting: trusting, trampoline: trampoline,
    // p5.Color methods p5 itself replaces at presetup (p5 2.3.4, color/p5.Color.js).
    rewrappedByP5: (key) => typeof key === "string" && (key.slice(0, 3) === "set" || key.slice(0, 4) === "_get"),
    primordials: freeze({ apply: apply, construct: construct, defineProperty: defineProperty,
                          getOwnPropertyDescriptor: getOwnPropertyDescriptor,
                          getOwnPropertyNames: getOwnPropertyNames, getPrototypeOf: getPrototypeOf,
                          setPrototypeOf: Object.setPrototypeOf, preventExtensions: Object.preventExtensions,
                          create: create, freeze: freeze, stringify: stringify, lock: lock }),
    params: freeze({ seed: seed, size: Number(param("size")) || 600,
                     allow: freeze(list("allow")), statements: freeze(list("statements")),
                     watch: freeze({ p5_drawing: freeze(list("watchDraw")), text_drawing: freeze(list("watchText")),
                                     raw_drawing: freeze(list("watchRaw")) }) }),
    start: now(),
  });
  observeAll(document.documentElement);
  defineProperty(window, "__bwKit", { value: () => kit, configurable: true, enumerable: false });
})();
