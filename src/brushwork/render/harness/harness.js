// brushwork harness, part 2: runs after p5 and p5.brush, before the sketch.
//
// Wraps every entry point of p5 and p5.brush the sketch can reach and decides at each call,
// from the call stack (seed.js `whoCalls`), whether the sketch's own code is calling:
// - brush.* methods count only when the sketch calls them; p5.brush's Plot / Polygon /
//   Position objects (which paint on their own) reach the sketch only as stand-ins whose
//   every method flags `unlisted_call`;
// - p5 functions outside the sketch language (`data-allow`) flag when the sketch calls
//   them (`p5_drawing`, `text_drawing`, `raw_drawing`, else `unlisted_call`); allowed
//   statements (translate, createCanvas…) hand the sketch nothing back;
// - objects the sketch obtains from the library (a Graphics, a Framebuffer, a drawing
//   context, a colour…) are "held": their methods flag when the sketch calls them;
// - reading `p5.instance`, or calling p5's statics, flags.
// Guards createCanvas, seeds p5's randomness, locks p5's lifecycle, and captures the canvas
// right after the first frame. (The browser's own drawing APIs and the built-ins are
// guard.js's.) Every verdict-relevant fact goes to Python over the evidence channel as it
// happens.
(function () {
  "use strict";
  const kit = window.__bwKit();
  const P = kit.primordials;
  const apply = P.apply;
  const construct = P.construct;
  const defineProperty = P.defineProperty;
  const getOwnPropertyDescriptor = P.getOwnPropertyDescriptor;
  const getOwnPropertyNames = P.getOwnPropertyNames;
  const getPrototypeOf = P.getPrototypeOf;
  const create = P.create;
  const freeze = P.freeze;
  const lock = P.lock;
  const send = kit.send;
  const flag = kit.flag;
  const whoCalls = kit.whoCalls;
  const now = kit.now;
  const params = kit.params;
  const setTimeoutRef = window.setTimeout;
  const later = (f, ms) => apply(setTimeoutRef, window, [f, ms]);
  const toDataURL = HTMLCanvasElement.prototype.toDataURL;
  const canvasWidth = getOwnPropertyDescriptor(HTMLCanvasElement.prototype, "width").get;
  const canvasHeight = getOwnPropertyDescriptor(HTMLCanvasElement.prototype, "height").get;
  const readPixels = WebGL2RenderingContext.prototype.readPixels;
  const byTag = Document.prototype.getElementsByTagName;
  const byId = Document.prototype.getElementById;
  const isConnected = getOwnPropertyDescriptor(Node.prototype, "isConnected").get;
  const collectionLength = getOwnPropertyDescriptor(HTMLCollection.prototype, "length").get;
  const promiseThen = Promise.prototype.then;
  const listen = EventTarget.prototype.addEventListener;
  const isArray = Array.isArray;
  const wmGet = WeakMap.prototype.get;
  const wmSet = WeakMap.prototype.set;
  const table = (names) => { const t = create(null); for (let i = 0; i < names.length; i += 1) t[names[i]] = true; return t; };
  const isObject = kit.isObject;
  const setOwn = (obj, key, value) => {  // a plain assignment could meet a setter the sketch put on a prototype
    const d = create(null);
    d.value = value;
    d.writable = true;
    d.enumerable = true;
    d.configurable = true;
    defineProperty(obj, key, d);
  };

  const counts = create(null);  // brush method -> calls by the sketch
  const timings = create(null);
  timings.start = kit.start;
  let paintCalls = 0;
  let clearedAfterPaint = 0;
  let inst = null;
  let userCanvas = null;

  const byTheSketch = kit.byTheSketch;
  const flagCall = kit.flagCall;
  const hold = kit.hold;
  const watchedCall = kit.watchedCall;
  const heldCall = kit.heldCall;
  const wrapEach = kit.wrapEach;

  // ---------------------------------------------------------------------------------
  // p5.brush. Its classes paint on their own (`brush.endShape()` returns a Plot whose
  // `.genPol().wash()` paints), so the sketch never holds a real one: brush methods and the
  // exported constructors hand it a stand-in whose every method flags and then forwards.
  // p5.brush's own instances, called thousands of times per fill, stay unwrapped.
  // ---------------------------------------------------------------------------------
  const PAINTING = table(["circle", "endShape", "rect", "line", "flowLine", "spline", "arc", "polygon", "endStroke"]);
  const brushObj = window.brush;
  const realOf = new WeakMap();
  const brushClasses = [];  // [real prototype, stand-in prototype]
  const toSketch = (v) => {
    if (!isObject(v)) return v;
    const proto = getPrototypeOf(v);
    for (let i = 0; i < brushClasses.length; i += 1) {
      if (brushClasses[i][0] !== proto) continue;
      const standIn = create(brushClasses[i][1]);
      apply(wmSet, realOf, [standIn, v]);
      return standIn;
    }
    if (!isArray(v)) return undefined;  // any other library object stays in the library
    const out = [];
    for (let i = 0; i < v.length; i += 1) setOwn(out, i, toSketch(v[i]));
    return out;
  };
  const fromSketch = (v) => {
    const real = isObject(v) ? apply(wmGet, realOf, [v]) : undefined;
    return real === undefined ? v : real;
  };
  const realArgs = (args) => {
    const out = create(null);
    out.length = args.length;
    for (let i = 0; i < args.length; i += 1) out[i] = fromSketch(args[i]);
    return out;
  };
  // What a brush method receives from the sketch is made plain here, in the harness's frame,
  // so that none of the sketch's code (a valueOf, a getter, an array element, a colour's
  // internals) runs later inside p5.brush: numbers and strings as they are, arrays copied,
  // colours copied and computed now, stand-ins swapped for the real object, callbacks behind
  // a trampoline (they run as the sketch's code), options objects copied, anything else
  // turned into a string now.
  const ColorClass = p5.Color;
  const ObjectProto = Object.prototype;
  const plain = (v, depth) => {
    if (!isObject(v)) return v;
    if (typeof v === "function") return kit.trampoline(v);
    const real = apply(wmGet, realOf, [v]);
    if (real !== undefined) return real;
    if (getPrototypeOf(v) === ColorClass.prototype) {
      const copy = construct(ColorClass, [v]);
      copy._color;  // computed now, from the sketch's colour, not later inside p5.brush
      return copy;
    }
    if (depth >= 3) return "" + v;
    if (isArray(v)) {
      const out = [];
      const n = v.length;
      for (let i = 0; i < n; i += 1) setOwn(out, i, plain(v[i], depth + 1));
      return out;
    }
    const proto = getPrototypeOf(v);
    if (proto === ObjectProto || proto === null) {  // an options object: its own values, read now
      const out = {};
      const keys = getOwnPropertyNames(v);
      for (let i = 0; i < keys.length; i += 1) setOwn(out, keys[i], plain(v[keys[i]], depth + 1));
      return out;
    }
    return "" + v;
  };
  const plainArgs = (args) => {
    const out = create(null);
    out.length = args.length;
    for (let i = 0; i < args.length; i += 1) out[i] = plain(args[i], 0);
    return out;
  };
  // The built-ins guard.js could only watch (V8 protectors): checked around every brush call,
  // at p5's lifecycle steps and at the capture.
  const checkBuiltins = () => {
    const changed = kit.builtinsChanged();
    if (changed !== "") flag("harness_tampering", changed);
    return changed === "";
  };
  const standInClass = (name, Class) => {
    const standIn = create(null);
    for (const method of getOwnPropertyNames(Class.prototype)) {
      const d = getOwnPropertyDescriptor(Class.prototype, method);
      if (method === "constructor" || typeof d.value !== "function") continue;
      const real = d.value;
      const what = "brush." + name + "." + method + "()";
      standIn[method] = function () {
        const who = whoCalls();
        if (byTheSketch(who)) flagCall("unlisted_call", what, who);
        return toSketch(apply(real, fromSketch(this), realArgs(arguments)));
      };
    }
    const Wrapped = function () {
      const who = whoCalls();
      if (byTheSketch(who)) flagCall("unlisted_call", "new brush." + name + "()", who);
      return toSketch(construct(Class, realArgs(arguments)));
    };
    standIn.constructor = Wrapped;
    Wrapped.prototype = freeze(standIn);
    brushClasses[brushClasses.length] = freeze([Class.prototype, standIn]);
    return freeze(Wrapped);
  };
  for (const name of getOwnPropertyNames(brushObj)) {
    const original = brushObj[name];
    if (typeof original !== "function") continue;
    if (original.prototype && name[0] >= "A" && name[0] <= "Z") {
      brushObj[name] = standInClass(name, original);
      continue;
    }
    const painting = PAINTING[name] === true;
    brushObj[name] = function () {
      const who = whoCalls();
      if (!byTheSketch(who)) return apply(original, this, arguments);
      counts[name] = (counts[name] || 0) + 1;
      if (painting) paintCalls += 1;
      send("brush", name, "", who);  // once per name
      const args = plainArgs(arguments);
      const intact = checkBuiltins();
      try {  // with plain arguments and intact built-ins, nothing of the sketch's runs in there
        return toSketch(intact ? kit.trusting(original, brushObj, args) : apply(original, brushObj, args));
      } finally {
        checkBuiltins();
      }
    };
  }

  // ---------------------------------------------------------------------------------
  // p5. Every prototype function is wrapped, so that library code the sketch enters always
  // starts at a harness frame; allowed ones pass through (statements hand back nothing).
  // ---------------------------------------------------------------------------------
  const fn = p5.prototype;
  const WEBGL = fn.WEBGL;
  const registerAddon = p5.registerAddon;
  const allowed = table(params.allow);
  const statements = table(params.statements);
  const category = create(null);
  for (const id of ["p5_drawing", "text_drawing", "raw_drawing"]) {
    const names = params.watch[id];
    for (let i = 0; i < names.length; i += 1) category[names[i]] = id;
  }
  const idFor = (name) => category[name] || "unlisted_call";
  // p5 schedules these itself as bare callbacks (animation frames, window events).
  const orphanOk = (name) => name === "_draw" || (name[0] === "_" && name[1] === "o" && name[2] === "n");
  // Accessibility descriptions are text for screen readers, not paint: keep them off the page.
  const NOOP = table(["describe", "describeElement", "gridOutput", "textOutput"]);
  const originals = create(null);
  for (const name of getOwnPropertyNames(fn)) {
    const d = getOwnPropertyDescriptor(fn, name);
    if (name !== "constructor" && typeof d.value === "function") originals[name] = d.value;
  }
  wrapEach(fn, getOwnPropertyNames(fn), (original, name) => {
    if (NOOP[name] === true) return function () {};
    if (statements[name] === true) {
      return function () {
        const r = apply(original, this, arguments);
        return isObject(r) && byTheSketch(whoCalls()) ? undefined : r;
      };
    }
    if (allowed[name] === true) {  // a colour, or one of the sketch's own values: held
      return function () {
        const r = apply(original, this, arguments);
        return isObject(r) && byTheSketch(whoCalls()) ? hold(r) : r;
      };
    }
    return watchedCall(original, idFor(name), name + "()", orphanOk(name));
  });
  // Reading the drawing context or the pixel array is raw access too.
  for (const name of ["drawingContext", "pixels"]) {
    const d = getOwnPropertyDescriptor(fn, name);
    if (!d || typeof d.get !== "function") continue;
    d.get = watchedCall(d.get, "raw_drawing", name, false);
    defineProperty(fn, name, d);
  }
  fn.createCanvas = function (w, h, mode) {
    const who = whoCalls();
    if (!byTheSketch(who)) return apply(originals.createCanvas, this, arguments);
    if (userCanvas !== null || this !== inst) flag("canvas_replaced", "createCanvas called twice");
    if (w !== params.size || h !== params.size) {
      flag("canvas_size", "createCanvas(" + kit.str(w) + ", " + kit.str(h) + ")");
      throw new Error("brushwork: canvas must be " + params.size + "x" + params.size);
    }
    if (mode !== WEBGL) flag("not_webgl", "canvas mode " + (typeof mode === "string" ? mode : typeof mode));
    apply(originals.createCanvas, this, arguments);
    userCanvas = this._renderer ? this._renderer.canvas || null : null;
    if (userCanvas !== null) P.preventExtensions(userCanvas);  // p5 reads it while painting: no own getters
    return undefined;
  };
  for (const name of ["background", "clear"]) {
    const wrapped = fn[name];
    fn[name] = function () {
      if (paintCalls > 0 && byTheSketch(whoCalls())) {
        clearedAfterPaint += 1;
        flag("painted_then_cleared", name + "() after painting");
      }
      return apply(wrapped, this, arguments);
    };
  }

  // p5's classes: a Graphics (its own copy of the drawing API), a Framebuffer, an image, a
  // font, a renderer… in the sketch's hands draws outside p5.brush at its call. The classes
  // p5 and p5.brush use thousands of times per render (framebuffers, textures, shaders,
  // matrices, colours) are watched on objects the sketch holds; the others at every call,
  // since p5.brush may hand one to the sketch (a custom brush tip draws on a Graphics).
  // Constructing the ones that draw is flagged too; p5 builds its matrices and vectors
  // through `p5.*`, too often to watch, and they paint nothing.
  const EVERY_CALL = table(["Graphics", "Image", "Font", "Element", "MediaElement", "Camera", "Geometry", "Table",
                            "TableRow", "XML", "PrintWriter", "File"]);
  const CONSTRUCTED = table(["Graphics", "Framebuffer", "FramebufferTexture", "Image", "Font", "Texture",
                             "MipmapTexture", "Renderer", "Renderer2D", "Renderer3D", "RendererGL", "Shader",
                             "Element", "MediaElement", "Geometry", "Camera", "FramebufferCamera"]);
  for (const name of getOwnPropertyNames(p5)) {
    const Class = p5[name];
    if (typeof Class !== "function" || !Class.prototype || name[0] < "A" || name[0] > "Z") continue;
    const watch = EVERY_CALL[name] === true ? watchedCall : heldCall;
    wrapEach(Class.prototype, getOwnPropertyNames(Class.prototype),
             (original, method) => watch(original, idFor(method), "p5." + name + "." + method + "()"));
    if (CONSTRUCTED[name] !== true || !getOwnPropertyDescriptor(p5, name).configurable) continue;
    const Wrapped = function () {
      const who = whoCalls();
      if (byTheSketch(who)) flagCall("unlisted_call", "new p5." + name + "()", who);
      const made = construct(Class, arguments, new.target || Class);
      return byTheSketch(who) ? hold(made) : made;
    };
    P.setPrototypeOf(Wrapped, Class);  // statics stay reachable
    Wrapped.prototype = Class.prototype;
    lock(p5, name, Wrapped);
  }
  // `p5.instance` leads to everything behind the canvas (renderer, shaders, state): reading
  // it is outside the sketch language (p5.brush reads it too, which is not the sketch's
  // doing). p5's statics flag when the sketch calls them, and no decorator may rewrite p5.
  wrapEach(p5, getOwnPropertyNames(p5), (original, name) =>
    (original.prototype !== undefined && name[0] >= "A" && name[0] <= "Z" ? original
      : watchedCall(original, "unlisted_call", "p5." + name + "()", false)));
  let instance = p5.instance;
  const instanceSlot = create(null);
  instanceSlot.get = watchedCall(function () { return instance; }, "unlisted_call", "p5.instance", false);
  instanceSlot.set = function (value) { instance = value; };
  instanceSlot.configurable = false;
  defineProperty(p5, "instance", instanceSlot);
  const noDecorations = create(null);
  noDecorations.size = 0;
  noDecorations.set = watchedCall(function () { return noDecorations; }, "unlisted_call", "p5.decorations.set()", false);
  noDecorations.clear = function () {};
  lock(p5, "decorations", freeze(noDecorations));

  // ---------------------------------------------------------------------------------
  // The capture, right after the first frame, with references taken before the sketch ran.
  // ---------------------------------------------------------------------------------
  let finished = false;
  let resolveDone;
  const done = new Promise((resolve) => { resolveDone = resolve; });

  function capture(p, stage) {
    if (finished) return;
    finished = true;
    try { apply(originals.noLoop, p, []); } catch (e) { /* the sketch may have broken p5 itself */ }
    const renderer = p ? p._renderer : null;
    const canvas = renderer ? renderer.canvas || null : null;
    const canvasCount = apply(collectionLength, apply(byTag, document, ["canvas"]), []);
    const same = canvas !== null && canvas === userCanvas && apply(isConnected, canvas, []);
    const result = create(null);
    result.stage = stage;
    result.frameCount = p ? p.frameCount : 0;
    result.dataUrl = null;
    result.width = 0;
    result.height = 0;
    timings.drawn = now();
    checkBuiltins();
    if (canvas !== null) {
      try {
        const gl = renderer.GL;
        if (gl && renderer.isP3D) apply(readPixels, gl, [0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(4)]);
        timings.flushed = now();
        result.width = apply(canvasWidth, canvas, []);
        result.height = apply(canvasHeight, canvas, []);
        result.dataUrl = apply(toDataURL, canvas, ["image/png"]);
        timings.encoded = now();
      } catch (e) { /* not a canvas: nothing to capture */ }
    }
    send("capture", stage, same ? "same" : "other", canvasCount, result.width + "x" + result.height);
    resolveDone(result);
  }

  const EVENT_HOOKS = ["mouseMoved", "mouseDragged", "mousePressed", "mouseReleased", "mouseClicked", "doubleClicked",
                       "mouseWheel", "keyPressed", "keyReleased", "keyTyped", "windowResized", "deviceMoved",
                       "deviceTurned", "deviceShaken"];
  // p5.brush's own frame hooks (it flushes its painting at postdraw) run trusted too, while
  // the built-ins are intact: they read only p5.brush's and p5's state.
  for (const hook of ["predraw", "postdraw"]) {
    const hooks = p5.lifecycleHooks[hook];
    for (let i = 0; i < hooks.length; i += 1) {
      const original = hooks[i];
      hooks[i] = function () {
        return kit.builtinsChanged() === "" ? kit.trusting(original, this, arguments) : apply(original, this, arguments);
      };
    }
  }
  apply(registerAddon, p5, [function (p5Class, proto, lifecycles) {
    lifecycles.presetup = function () {
      inst = this;
      apply(originals.randomSeed, this, [params.seed]);
      apply(originals.noiseSeed, this, [params.seed]);
      kit.expectNode(this._loadingIndicator || null);
      kit.expectNode(apply(byId, document, ["p5-loading-style"]));
      // p5 calls these with its instance as `this`: a way to p5's internals outside the language.
      for (const name of EVENT_HOOKS) {
        if (getOwnPropertyDescriptor(window, name)) flag("unlisted_call", name + "() defined by the sketch");
      }
      const colour = ColorClass.prototype;  // p5 rewrapped these at its own presetup, just before
      for (const key of getOwnPropertyNames(colour)) {
        const d = getOwnPropertyDescriptor(colour, key);
        if (kit.rewrappedByP5(key) && d.configurable && typeof d.value === "function") lock(colour, key, d.value);
      }
      checkBuiltins();
      timings.setup = now();
    };
    lifecycles.postsetup = function () {
      checkBuiltins();
      timings.setupDone = now();
      if (typeof window.draw !== "function") later(() => capture(this, "setup"), 0);
    };
    lifecycles.postdraw = function () {  // right after p5.brush's own postdraw, which paints
      checkBuiltins();
      const p = this;
      later(() => capture(p, "draw"), 0);
    };
  }]);
  // An error that stops p5 before its first frame still ends the render, with what the
  // canvas holds and the error recorded (p5 awaits setup, so a throw there arrives as an
  // unhandled rejection).
  const onFailure = () => later(() => capture(inst, "error"), 50);
  apply(listen, window, ["error", onFailure]);
  apply(listen, window, ["unhandledrejection", onFailure]);

  // ---------------------------------------------------------------------------------
  // Nothing the libraries or the capture rely on may be rewritten by the sketch: the brush
  // object, p5's lifecycle (guard.js freezes the built-ins). p5's own prototypes stay
  // unfrozen: p5 assigns over their properties on instances, and at presetup.
  // ---------------------------------------------------------------------------------
  freeze(brushObj);
  lock(window, "brush", brushObj);
  lock(window, "p5", p5);
  for (const hook of ["presetup", "postsetup", "predraw", "postdraw"]) freeze(p5.lifecycleHooks[hook]);
  lock(p5, "lifecycleHooks", p5.lifecycleHooks);

  // What Python reads at the end: the PNG, counts and timings, as one JSON string (the
  // verdict-relevant facts went over the evidence channel already).
  lock(window, "__bwResult", () => apply(promiseThen, done, [(result) => {
    const events = create(null);
    events.calls = counts;
    events.paintCalls = paintCalls;
    events.clearedAfterPaint = clearedAfterPaint;
    events.probes = kit.probes();
    events.timings = timings;
    const out = create(null);
    out.result = result;
    out.events = events;
    return P.stringify(out);
  }]));
  timings.harness = now();
})();
