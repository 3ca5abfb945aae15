"""The names the gate knows: p5.brush 2.2.2's API and the p5 / browser names each rule forbids.

Explicit lists, not patterns: a name is judged by what it is, so `rectWidth` or
`textureAmount` are just identifiers and never match `rect` or `text`.
"""

from __future__ import annotations

# p5.brush 2.2.2, p5 build: every exported function (the classes Polygon/Plot/Position
# are constructors, listed apart).
BRUSH_METHODS = frozenset({
    "set", "pick", "stroke", "strokeWeight", "noStroke", "line", "flowLine", "spline",
    "beginStroke", "move", "endStroke", "arc", "rect", "circle", "beginShape", "vertex",
    "endShape", "polygon", "fill", "noFill", "fillBleed", "fillTexture", "wash", "noWash",
    "hatch", "noHatch", "hatchStyle", "hatchArray", "mass", "noMass", "massArray", "field",
    "noField", "wiggle", "addField", "refreshField", "listFields", "scaleBrushes", "load",
    "instance", "seed", "noiseSeed", "wRand", "box", "add", "clip", "noClip",
})
BRUSH_CLASSES = frozenset({"Polygon", "Plot", "Position"})

# brush methods that put marks on the canvas (the rest set state).
BRUSH_PAINTING = frozenset({"circle", "endShape", "rect", "line", "flowLine", "spline", "arc",
                            "polygon", "endStroke"})

# p5 functions that draw or style marks without p5.brush.
P5_PRIMITIVES = frozenset({
    "point", "line", "rect", "square", "ellipse", "circle", "arc", "triangle", "quad",
    "bezier", "curve", "spline", "beginShape", "endShape", "vertex", "bezierVertex",
    "curveVertex", "quadraticVertex", "splineVertex", "beginContour", "endContour",
    "box", "sphere", "plane", "cylinder", "cone", "torus", "ellipsoid", "model", "beginGeometry",
    "endGeometry", "buildGeometry", "fill", "noFill", "stroke", "noStroke", "strokeWeight",
    "strokeCap", "strokeJoin", "erase", "noErase", "tint", "noTint", "blendMode",
    "normalMaterial", "ambientMaterial", "specularMaterial", "emissiveMaterial", "lights",
    "ambientLight", "directionalLight", "pointLight", "spotLight", "imageLight", "panorama",
    "ellipseMode", "rectMode", "smooth", "noSmooth",
})

P5_TEXT = frozenset({
    "text", "textFont", "textSize", "textAlign", "textStyle", "textWidth", "textLeading",
    "textAscent", "textDescent", "textWrap", "textBounds", "textToPoints", "textToContours",
    "textToModel", "textDirection", "textProperty", "textProperties", "textWeight", "fontBounds",
    "fontWidth", "fontAscent", "fontDescent",
})
TEXT_MEMBERS = frozenset({"fillText", "strokeText", "font", "measureText"})

P5_RAW = frozenset({
    "drawingContext", "pixels", "loadPixels", "updatePixels", "get", "set", "filter",
    "shader", "resetShader", "createShader", "loadShader", "createFilterShader",
    "baseMaterialShader", "baseFilterShader", "baseColorShader", "baseNormalShader",
    "baseStrokeShader", "buildMaterialShader", "buildFilterShader", "buildColorShader",
    "buildNormalShader", "buildStrokeShader", "loadMaterialShader", "loadFilterShader",
    "createGraphics", "createFramebuffer", "createImage", "image", "texture", "textureMode",
    "textureWrap", "copy", "blend", "imageMode", "saveCanvas", "createCamera", "setCamera",
    "camera", "perspective", "ortho", "frustum", "_renderer", "webglVersion", "setAttributes",
})
RAW_MEMBERS = frozenset({"getContext", "readPixels", "getImageData", "putImageData", "drawImage",
                         "toDataURL", "toBlob", "transferControlToOffscreen", "captureStream",
                         "drawingContext", "_renderer", "pixels", "loadPixels", "updatePixels",
                         "createImageData", "texImage2D", "texSubImage2D"})

# Network, files, workers, eval-like code, DOM, navigation, windows.
EXTERNAL_NAMES = frozenset({
    "fetch", "XMLHttpRequest", "WebSocket", "EventSource", "RTCPeerConnection", "Worker",
    "SharedWorker", "importScripts", "eval", "Function", "AsyncFunction", "GeneratorFunction",
    "WebAssembly", "Image", "Audio", "Option", "FontFace", "FileReader", "Blob", "URL",
    "Request", "Response", "Headers", "BroadcastChannel", "MessageChannel", "indexedDB",
    "localStorage", "sessionStorage", "caches", "cookieStore", "document", "navigator",
    "location", "history", "open", "close", "alert", "prompt", "confirm", "print",
    "postMessage", "require", "module", "exports", "loadImage", "loadJSON", "loadStrings",
    "loadTable", "loadXML", "loadBytes", "loadBlob", "loadModel", "loadSound", "loadFont",
    "httpGet", "httpPost", "httpDo", "createImg", "createVideo", "createAudio", "createCapture",
    "createDiv", "createP", "createSpan", "createA", "createButton", "createCheckbox",
    "createSelect", "createRadio", "createColorPicker", "createInput", "createFileInput",
    "createSlider", "createElement", "createWriter", "select", "selectAll", "removeElements",
    "save", "saveGif", "saveFrames", "saveJSON", "saveStrings", "saveTable", "downloadFile",
    "getURL", "getURLPath", "getURLParams", "remove", "queueMicrotask",
})
# Members that only the page or the network has (a sketch's own objects may well have a
# `style`, a `src` or an `append`: those are not listed).
DOM_MEMBERS = frozenset({"innerHTML", "outerHTML", "insertAdjacentHTML", "appendChild", "insertBefore",
                         "replaceChildren", "createElement", "contentWindow", "contentDocument",
                         "ownerDocument", "defaultView", "sendBeacon", "serviceWorker", "cookie", "srcdoc",
                         "importScripts", "opener"})

TIMERS = frozenset({"setTimeout", "setInterval", "requestAnimationFrame", "requestIdleCallback"})

# p5 canvas functions with their own rule rather than "bare primitive".
CANVAS_CHANGERS = frozenset({"resizeCanvas", "pixelDensity", "noCanvas", "createCanvas"})
