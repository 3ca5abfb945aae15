// brushwork harness, part 2: runs after p5 and p5.brush, before the sketch.
// Counts every brush call; watches what the sketch's own code (not p5's or p5.brush's
// internals) draws with p5, WebGL or 2D contexts; guards createCanvas; seeds p5's
// randomness before setup; freezes what a sketch could rewrite to fake a capture; and
// captures the canvas right after the first frame (after p5.brush has flushed it and a
// forced GPU readback), using references taken before the sketch ran.
(function () {
  "use strict";
  const events = window.__bwEvents;
  const params = window.__bwParams;
  const apply = Reflect.apply;
  const freeze = Object.freeze;
  const push = (list, item) => { if (list.length < 50) list.push(item); };
  const flag = (id, detail) => push(events.runtime, { id: id, detail: detail });
  const PAINTING = new Set(["circle", "endShape", "rect", "line", "flowLine", "spline", "arc",
                            "polygon", "endStroke"]);
  const toDataURL = HTMLCanvasElement.prototype.toDataURL;
  const readPixels = WebGL2RenderingContext.prototype.readPixels;
  const byTag = Document.prototype.getElementsByTagName;

  let brushDepth = 0;  // inside a p5.brush call
  let libDepth = 0;    // inside any p5 function
  let inSetup = false;
  let inst = null;
  // True only while the sketch's own setup()/draw() code runs, outside p5 and p5.brush.
  const userCode = () => brushDepth === 0 && libDepth === 0 && (inSetup || !!(inst && inst._inUserDraw));

  // p5.brush: count calls (the gate compares them with the allow-list; the scorer reports them).
  const brushObj = window.brush;
  for (const name of Object.keys(brushObj)) {
    const original = brushObj[name];
    if (typeof original !== "function" || /^[A-Z]/.test(name)) continue;
    brushObj[name] = function () {
      events.calls[name] = (events.calls[name] || 0) + 1;
      if (PAINTING.has(name)) events.paintCalls += 1;
      brushDepth += 1;
      try { return apply(original, this, arguments); } finally { brushDepth -= 1; }
    };
  }

  // p5: every prototype function marks "inside p5"; the watched ones (drawing, text,
  // pixels) are flagged when the sketch itself calls them.
  const fn = p5.prototype;
  const watched = new Map();
  for (const id of Object.keys(params.watch)) for (const name of params.watch[id]) watched.set(name, id);
  // Accessibility descriptions are text for screen readers, not paint: keep them off the page.
  for (const name of ["describe", "describeElement", "gridOutput", "textOutput"]) {
    if (typeof fn[name] === "function") fn[name] = function () {};
  }
  for (const name of Object.getOwnPropertyNames(fn)) {
    const d = Object.getOwnPropertyDescriptor(fn, name);
    if (!d || typeof d.value !== "function" || name === "constructor" || /^[A-Z_]/.test(name)) continue;
    const original = d.value;
    const flagId = watched.get(name);
    fn[name] = function () {
      if (flagId && userCode()) flag(flagId, name + "() called by the sketch");
      libDepth += 1;
      try { return apply(original, this, arguments); } finally { libDepth -= 1; }
    };
  }

  // Direct WebGL and 2D-context drawing from the sketch's own code bypasses p5.brush.
  const watchProto = (proto, names, id) => {
    if (!proto) return;
    for (const name of names) {
      const original = proto[name];
      if (typeof original !== "function") continue;
      proto[name] = function () {
        if (userCode()) flag(id, name + "() called by the sketch");
        return apply(original, this, arguments);
      };
    }
  };
  const GL_DRAW = ["drawArrays", "drawElements", "drawArraysInstanced", "drawElementsInstanced",
                   "drawRangeElements", "clear", "blitFramebuffer", "texImage2D", "texSubImage2D",
                   "copyTexImage2D", "copyTexSubImage2D", "readPixels"];
  const CTX_DRAW = ["fillRect", "strokeRect", "drawImage", "putImageData", "fill", "stroke", "clearRect"];
  for (const glProto of [WebGL2RenderingContext.prototype, WebGLRenderingContext.prototype]) {
    watchProto(glProto, GL_DRAW, "raw_drawing");
  }
  for (const ctx of [window.CanvasRenderingContext2D, window.OffscreenCanvasRenderingContext2D]) {
    if (!ctx) continue;
    watchProto(ctx.prototype, CTX_DRAW, "raw_drawing");
    watchProto(ctx.prototype, ["fillText", "strokeText"], "text_drawing");
  }

  let userCanvas = null;
  const createCanvas = fn.createCanvas;
  fn.createCanvas = function (w, h, mode) {
    if (!(brushDepth === 0 && libDepth === 0 && inSetup)) return apply(createCanvas, this, arguments);
    if (userCanvas !== null) flag("canvas_replaced", "createCanvas called twice");
    if (w !== params.size || h !== params.size) {
      flag("canvas_size", "createCanvas(" + w + ", " + h + ")");
      throw new Error("brushwork: canvas must be " + params.size + "x" + params.size);
    }
    if (mode !== this.WEBGL) flag("not_webgl", "canvas mode " + String(mode));
    const r = apply(createCanvas, this, arguments);
    userCanvas = this._renderer ? this._renderer.canvas || null : null;
    return r;
  };
  for (const name of ["background", "clear"]) {
    const original = fn[name];
    fn[name] = function () {
      if (events.paintCalls > 0 && userCode()) events.clearedAfterPaint += 1;
      return apply(original, this, arguments);
    };
  }

  // Nothing the capture relies on may be rewritten by the sketch. (WebGL and p5 prototypes
  // stay unfrozen: p5 assigns over their properties on instances, which a frozen prototype forbids.)
  for (const obj of [brushObj, Math, JSON, Reflect, Promise, Promise.prototype, HTMLCanvasElement.prototype,
                     Document.prototype]) {
    freeze(obj);
  }
  Object.defineProperty(window, "brush", { value: brushObj, writable: false, configurable: false });

  let finished = false;
  let resolveDone;
  const done = new Promise((resolve) => { resolveDone = resolve; });

  function capture(p, stage) {
    if (finished) return;
    finished = true;
    try { p.noLoop(); } catch (e) { /* the sketch may have broken p5 itself */ }
    const canvas = p && p._renderer ? p._renderer.canvas || null : null;
    const result = { stage: stage, frameCount: p ? p.frameCount : 0, dataUrl: null, width: 0, height: 0,
                     canvasCount: apply(byTag, document, ["canvas"]).length,
                     sameCanvas: !!canvas && canvas === userCanvas && canvas.isConnected };
    events.timings.drawn = performance.now();
    if (canvas) {
      const gl = p._renderer.GL || p.drawingContext;
      if (gl && p._renderer.isP3D) apply(readPixels, gl, [0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(4)]);
      events.timings.flushed = performance.now();
      result.width = canvas.width;
      result.height = canvas.height;
      result.dataUrl = apply(toDataURL, canvas, ["image/png"]);
      events.timings.encoded = performance.now();
    }
    resolveDone(result);
  }

  p5.registerAddon(function (p5Class, proto, lifecycles) {
    lifecycles.presetup = function () {
      inst = this;
      events.phase = "setup";
      this.randomSeed(params.seed);
      this.noiseSeed(params.seed);
      const userSetup = window.setup;
      if (typeof userSetup === "function") {
        window.setup = function () {
          inSetup = true;
          try { return apply(userSetup, this, arguments); } finally { inSetup = false; }
        };
      }
      events.observeDom();
      events.timings.setup = performance.now();
    };
    lifecycles.postsetup = function () {
      events.timings.setupDone = performance.now();
      events.phase = "draw";
      if (typeof window.draw !== "function") setTimeout(() => capture(this, "setup"), 0);
    };
    lifecycles.postdraw = function () {
      const p = this;
      setTimeout(() => capture(p, "draw"), 0);
    };
  });

  // An error that stops p5 before its first frame still ends the render, with what the
  // canvas holds and the error recorded (p5 awaits setup, so a throw there arrives as an
  // unhandled rejection).
  const onFailure = () => setTimeout(() => capture(inst, "error"), 50);
  window.addEventListener("error", onFailure);
  window.addEventListener("unhandledrejection", onFailure);

  Object.defineProperty(window, "__bwResult", {
    value: () => done.then((result) => ({ result: result, events: events })),
    writable: false, configurable: false, enumerable: false,
  });
})();
