// brushwork harness, part 3: the last script before the sketch; guards the browser itself.
//
// - Raw WebGL and 2D-context drawing, taking a drawing context, and the engine's image
//   sources flag when the sketch uses them (they bypass p5.brush).
// - Functions the sketch hands to the engine (bound functions, timers, promise reactions,
//   event listeners) run later with no sketch frame on the stack; they run through a
//   trampoline that the stack reads as the sketch's own frame.
// - Then the built-ins and the global names the libraries use at every call are frozen, and
//   the kit seed.js handed over is deleted from `window`.
(function () {
  "use strict";
  const kit = window.__bwKit();
  delete window.__bwKit;
  const P = kit.primordials;
  const apply = P.apply;
  const construct = P.construct;
  const getOwnPropertyDescriptor = P.getOwnPropertyDescriptor;
  const getOwnPropertyNames = P.getOwnPropertyNames;
  const getPrototypeOf = P.getPrototypeOf;
  const create = P.create;
  const freeze = P.freeze;
  const lock = P.lock;
  const whoCalls = kit.whoCalls;
  const byTheSketch = kit.byTheSketch;
  const watchedCall = kit.watchedCall;
  const heldCall = kit.heldCall;
  const wrapEach = kit.wrapEach;

  // ---------------------------------------------------------------------------------
  // Raw WebGL and 2D-context drawing, taking a context, and the engine's image sources
  // bypass p5.brush. Path fill() and stroke(), which p5.brush's masks call thousands of
  // times, are watched on contexts the sketch holds (taking one flags already).
  // ---------------------------------------------------------------------------------
  const watchNames = (holder, names, id) => {
    if (holder) wrapEach(holder, names, (original, name) => watchedCall(original, id, name + "()", false));
  };
  const GL_DRAW = ["drawArrays", "drawElements", "drawArraysInstanced", "drawElementsInstanced", "drawRangeElements",
                   "clear", "blitFramebuffer", "texImage2D", "texSubImage2D", "texImage3D", "texSubImage3D",
                   "copyTexImage2D", "copyTexSubImage2D", "copyTexSubImage3D", "readPixels"];
  for (const gl of [WebGL2RenderingContext.prototype, WebGLRenderingContext.prototype]) watchNames(gl, GL_DRAW, "raw_drawing");
  for (const ctx of [window.CanvasRenderingContext2D, window.OffscreenCanvasRenderingContext2D]) {
    if (!ctx) continue;
    watchNames(ctx.prototype, ["fillRect", "strokeRect", "drawImage", "putImageData", "clearRect"], "raw_drawing");
    watchNames(ctx.prototype, ["fillText", "strokeText"], "text_drawing");
    wrapEach(ctx.prototype, ["fill", "stroke"], (original, name) => heldCall(original, "raw_drawing", name + "()"));
  }
  for (const canvas of [window.HTMLCanvasElement, window.OffscreenCanvas]) {
    if (canvas) watchNames(canvas.prototype, ["getContext", "transferControlToOffscreen", "captureStream"], "raw_drawing");
  }
  watchNames(window.ImageBitmapRenderingContext && ImageBitmapRenderingContext.prototype,
             ["transferFromImageBitmap"], "raw_drawing");
  watchNames(window, ["createImageBitmap"], "raw_drawing");
  watchNames(Element.prototype, ["attachShadow", "setHTMLUnsafe"], "dom_tampering");
  watchNames(window, ["open"], "navigation");  // a new window: another page, another realm

  // ---------------------------------------------------------------------------------
  // Functions the sketch hands to the engine run later with no sketch frame on the stack.
  // When the sketch made one, it runs through a trampoline named `__bwSketchCall`, which
  // whoCalls reads as the sketch's own frame: a library function bound, scheduled or
  // listened with by the sketch is the sketch calling it.
  // ---------------------------------------------------------------------------------
  const trampoline = kit.trampoline;
  const bind = Function.prototype.bind;
  lock(Function.prototype, "bind", function bind_() {
    const bound = apply(bind, this, arguments);
    return byTheSketch(whoCalls()) ? trampoline(bound) : bound;
  });
  const viaTrampoline = (holder, name, at) => {
    const original = holder[name];
    if (typeof original !== "function") return;
    lock(holder, name, function () {
      const args = create(null);
      args.length = arguments.length;
      for (let i = 0; i < arguments.length; i += 1) args[i] = arguments[i];
      for (let i = 0; i < at.length; i += 1) {
        if (typeof args[at[i]] === "function" && byTheSketch(whoCalls())) args[at[i]] = trampoline(args[at[i]]);
      }
      return apply(original, this, args);
    });
  };
  for (const name of ["setTimeout", "setInterval", "requestAnimationFrame", "requestIdleCallback", "queueMicrotask"]) {
    viaTrampoline(window, name, [0]);
  }
  viaTrampoline(Promise.prototype, "then", [0, 1]);
  viaTrampoline(Promise.prototype, "catch", [0]);
  viaTrampoline(Promise.prototype, "finally", [0]);
  viaTrampoline(EventTarget.prototype, "addEventListener", [1]);

  // ---------------------------------------------------------------------------------
  // The built-ins every library call goes through, locked now that the libraries have loaded
  // and the harness has wrapped what it watches: a sketch that replaced Array.prototype.push,
  // Object.keys or `window.Map` would run its own code inside p5 or p5.brush, with their
  // objects in hand. Every method becomes read-only, except the few that V8 guards with
  // "protectors" (redefining `Symbol.iterator`, `next`, `then`, `constructor`… or freezing
  // Array.prototype / Object.prototype switches V8 to slow paths for every array: +12 % of
  // the page's CPU, measured): those, and additions to the root prototypes, are checked
  // instead around every brush call, at p5's lifecycle steps and at the capture
  // (`harness_tampering`). Error prototypes stay open: libraries assign `error.message` /
  // `this.name` on instances.
  // ---------------------------------------------------------------------------------
  const ownKeys = Reflect.ownKeys;
  const iteratorOf = (v) => getPrototypeOf(v[Symbol.iterator]());
  const typedArray = getPrototypeOf(Int8Array);
  const generator = getPrototypeOf(function* () {}).prototype;
  const asyncGenerator = getPrototypeOf(async function* () {}).prototype;
  const arrayIterator = iteratorOf([]);
  const BUILTINS = [Object, Array, Function, String, Number, Boolean, Symbol, BigInt, Map, Set, WeakMap, WeakSet,
                    WeakRef, Promise, RegExp, ArrayBuffer, DataView, typedArray, getPrototypeOf(arrayIterator),
                    arrayIterator, iteratorOf(new Map()), iteratorOf(new Set()), iteratorOf(""), generator,
                    asyncGenerator];
  for (const name of ["Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array",
                      "Uint32Array", "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array"]) {
    BUILTINS[BUILTINS.length] = window[name];
  }
  const GUARDED = [Symbol.iterator, Symbol.species, Symbol.isConcatSpreadable, Symbol.toPrimitive, Symbol.match,
                   Symbol.matchAll, Symbol.replace, Symbol.search, Symbol.split, "constructor", "next", "then",
                   "resolve", "exec", "flags", "length", "prototype"];
  const isGuarded = (key) => { for (let i = 0; i < GUARDED.length; i += 1) if (GUARDED[i] === key) return true; return false; };
  const watchedKeys = [];  // [object, key, value, get, set] of every guarded property, as it is now
  // Makes obj's own properties read-only and permanent, except those `keep(key, descriptor)`
  // names: it returns "watch" to check the property instead, true to leave it alone.
  const lockProps = (obj, keep) => {
    const keys = ownKeys(obj);
    for (let k = 0; k < keys.length; k += 1) {
      const d = getOwnPropertyDescriptor(obj, keys[k]);
      const why = keep(keys[k], d);
      if (why === "watch") watchedKeys[watchedKeys.length] = [obj, keys[k], d.value, d.get, d.set];
      if (why || !d.configurable) continue;
      const locked = create(null);
      if ("value" in d) { locked.value = d.value; locked.writable = false; } else { locked.get = d.get; locked.set = d.set; }
      locked.configurable = false;
      P.defineProperty(obj, keys[k], locked);
    }
  };
  const builtinKeep = (key) => (isGuarded(key) ? "watch" : false);
  for (let i = 0; i < BUILTINS.length; i += 1) {
    lockProps(BUILTINS[i], builtinKeep);
    if (typeof BUILTINS[i] === "function" && BUILTINS[i].prototype) lockProps(BUILTINS[i].prototype, builtinKeep);
  }
  for (const obj of [Math, JSON, Reflect]) freeze(obj);
  const ROOTS = [Object.prototype, Array.prototype, Function.prototype];
  const rootSizes = [];
  for (let i = 0; i < ROOTS.length; i += 1) rootSizes[i] = ownKeys(ROOTS[i]).length;
  kit.setBuiltinsCheck(() => {
    for (let i = 0; i < ROOTS.length; i += 1) {
      if (ownKeys(ROOTS[i]).length !== rootSizes[i]) return "a property was added to a built-in prototype";
    }
    for (let i = 0; i < watchedKeys.length; i += 1) {
      const w = watchedKeys[i];
      const d = getOwnPropertyDescriptor(w[0], w[1]);
      if (!d || d.value !== w[2] || d.get !== w[3] || d.set !== w[4]) {
        return "the built-in " + (typeof w[1] === "symbol" ? "[symbol]" : w[1]) + " was replaced";
      }
    }
    return "";
  });

  // p5's own prototypes and statics, likewise: a method the sketch swapped (or `p5.Matrix`,
  // which p5 builds at every transform) would run its code inside p5 or p5.brush. Methods
  // and accessors only: p5 assigns data properties on its objects, and over one method
  // (`RenderBuffer#default`), which is watched instead; the colour setters and getters p5
  // rewraps at its own presetup are locked by harness.js right after.
  const methodKeep = (key, d) => {
    if (key === "default") return "watch";
    return !(typeof d.value === "function" || d.get || d.set);
  };
  lockProps(p5.prototype, methodKeep);
  for (const name of getOwnPropertyNames(p5)) {
    const d = getOwnPropertyDescriptor(p5, name);  // (p5.instance is a watched getter: not read)
    const Class = d.value;
    if (d.configurable && typeof Class === "function") lock(p5, name, Class);
    if (typeof Class !== "function" || !Class.prototype || name[0] < "A" || name[0] > "Z") continue;
    lockProps(Class.prototype, name === "Color" ? (key, cd) => kit.rewrappedByP5(key) || methodKeep(key, cd) : methodKeep);
  }

  // What the libraries read from the page while they paint: the window's replaceable
  // attributes, the document and the console may not grow the sketch's getters.
  for (const name of ["self", "globalThis", "devicePixelRatio", "innerWidth", "innerHeight", "outerWidth",
                      "outerHeight", "screen", "screenX", "screenY", "screenLeft", "screenTop", "scrollX", "scrollY",
                      "pageXOffset", "pageYOffset", "performance", "visualViewport", "console", "navigator"]) {
    const d = getOwnPropertyDescriptor(window, name);
    if (!d || !d.configurable) continue;
    d.configurable = false;
    if ("value" in d) d.writable = false;
    P.defineProperty(window, name, d);
  }
  freeze(console);
  P.preventExtensions(document);

  // The global names the libraries look up at every call: interface objects and constructors
  // (`Float32Array`, `OffscreenCanvas`, `Image`…) and the plain functions they use.
  const PLAIN = create(null);
  for (const name of ["parseInt", "parseFloat", "isNaN", "isFinite", "structuredClone", "getComputedStyle",
                      "cancelAnimationFrame", "clearTimeout", "clearInterval", "cancelIdleCallback", "open"]) {
    PLAIN[name] = true;
  }
  const names = getOwnPropertyNames(window);
  for (let i = 0; i < names.length; i += 1) {
    const name = names[i];
    const d = getOwnPropertyDescriptor(window, name);
    const global = name[0] >= "A" && name[0] <= "Z" || PLAIN[name] === true;
    if (global && d && d.configurable && typeof d.value === "function") lock(window, name, d.value);
  }

  // The capture's own references were taken earlier; these stay as they are for everyone.
  for (const obj of [HTMLCanvasElement.prototype, Document.prototype]) freeze(obj);
})();
