// brushwork harness, part 2: runs after p5 and p5.brush, before the sketch.
// Counts every brush call, freezes the libraries' surfaces, guards createCanvas, seeds
// p5's randomness before setup, and captures the canvas right after the first frame
// (after p5.brush has flushed it, and after a forced GPU readback).
(function () {
  "use strict";
  const events = window.__bwEvents;
  const params = window.__bwParams;
  const push = (list, item) => { if (list.length < 50) list.push(item); };
  const PAINTING = new Set(["circle", "endShape", "rect", "line", "flowLine", "spline", "arc",
                            "polygon", "endStroke"]);

  // Count brush calls: the gate compares them with the allow-list (defence in depth
  // behind the static check), and the scorer reports them.
  const brushObj = window.brush;
  let brushDepth = 0;
  for (const name of Object.keys(brushObj)) {
    const original = brushObj[name];
    if (typeof original !== "function" || /^[A-Z]/.test(name)) continue;
    brushObj[name] = function () {
      events.calls[name] = (events.calls[name] || 0) + 1;
      if (PAINTING.has(name)) events.paintCalls += 1;
      brushDepth += 1;
      try { return original.apply(this, arguments); } finally { brushDepth -= 1; }
    };
  }
  Object.freeze(brushObj);
  Object.defineProperty(window, "brush", { value: brushObj, writable: false, configurable: false });
  Object.freeze(Math);

  let userCanvas = null;
  let inSetup = false;
  // True only while the sketch's own setup()/draw() runs, outside any brush call: p5 and
  // p5.brush call createCanvas/clear internally, and those calls are not the sketch's.
  const userActive = (inst) => brushDepth === 0 && (inSetup || !!(inst && inst._inUserDraw));
  let finished = false;
  let resolveDone;
  const done = new Promise((resolve) => { resolveDone = resolve; });

  const fn = p5.prototype;
  const createCanvas = fn.createCanvas;
  fn.createCanvas = function (w, h, mode) {
    if (!userActive(this)) return createCanvas.apply(this, arguments);
    if (userCanvas !== null) push(events.runtime, { id: "canvas_replaced", detail: "createCanvas called twice" });
    if (w !== params.size || h !== params.size) {
      push(events.runtime, { id: "canvas_size", detail: "createCanvas(" + w + ", " + h + ")" });
      throw new Error("brushwork: canvas must be " + params.size + "x" + params.size);
    }
    if (mode !== this.WEBGL) push(events.runtime, { id: "not_webgl", detail: "canvas mode " + String(mode) });
    const r = createCanvas.apply(this, arguments);
    userCanvas = this.canvas || (this._renderer && this._renderer.canvas) || null;
    return r;
  };
  // p5's own drawing, text and pixel functions, called from the sketch itself (not from
  // inside p5.brush, which uses some of them internally) bypass p5.brush.
  for (const name of params.watch) {
    const original = fn[name];
    if (typeof original !== "function") continue;
    fn[name] = function () {
      if (userActive(this)) push(events.runtime, { id: "p5_drawing", detail: name + "() called at run time" });
      return original.apply(this, arguments);
    };
  }
  for (const name of ["background", "clear"]) {
    const original = fn[name];
    fn[name] = function () {
      if (events.paintCalls > 0 && userActive(this)) events.clearedAfterPaint += 1;
      return original.apply(this, arguments);
    };
  }

  function capture(inst, stage) {
    if (finished) return;
    finished = true;
    try { inst.noLoop(); } catch (e) { /* the sketch may have broken p5 itself */ }
    const result = { stage: stage, frameCount: inst ? inst.frameCount : 0, dataUrl: null, width: 0, height: 0,
                     canvasCount: document.getElementsByTagName("canvas").length, sameCanvas: false };
    const canvas = inst && inst._renderer ? (inst._renderer.canvas || inst.canvas) : null;
    result.sameCanvas = !!canvas && canvas === userCanvas && canvas.isConnected;
    events.timings.drawn = performance.now();
    if (canvas) {
      const gl = inst._renderer.GL || inst.drawingContext;
      if (gl && gl.readPixels) gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(4));
      events.timings.flushed = performance.now();
      result.width = canvas.width;
      result.height = canvas.height;
      result.dataUrl = canvas.toDataURL("image/png");
      events.timings.encoded = performance.now();
    }
    resolveDone(result);
  }

  p5.registerAddon(function (p5Class, proto, lifecycles) {
    lifecycles.presetup = function () {
      events.phase = "setup";
      this.randomSeed(params.seed);
      this.noiseSeed(params.seed);
      const userSetup = window.setup;
      if (typeof userSetup === "function") {
        window.setup = function () {
          inSetup = true;
          try { return userSetup.apply(this, arguments); } finally { inSetup = false; }
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
      const inst = this;
      setTimeout(() => capture(inst, "draw"), 0);
    };
  });

  // An error that stops p5 before its first frame still ends the render, with what
  // the canvas holds and the error recorded (p5 awaits setup, so a throw there arrives
  // as an unhandled rejection).
  const onFailure = () => setTimeout(() => capture(p5.instance || null, "error"), 50);
  window.addEventListener("error", onFailure);
  window.addEventListener("unhandledrejection", onFailure);

  Object.defineProperty(window, "__bwResult", {
    value: () => done.then((result) => ({ result: result, events: events })),
    writable: false, configurable: false, enumerable: false,
  });
})();
