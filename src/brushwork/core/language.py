"""The sketch language: the only names a sketch may use, as data.

The gate is an allow-list. A sketch may declare and use its own variables, functions and
plain classes; everything it names that it did not declare must be in one of these tables.
The run-time harness receives the same p5 tables and flags any other p5 function the
sketch's own code calls, so both layers enforce one language.

- `P5_VALUES`: p5 functions that return a number, a string or one of the sketch's own
  values (maths, random / noise, map / lerp / constrain). Their result may be used freely.
- `P5_STATEMENTS`: p5 functions called for their effect (canvas set-up, transforms, seeds).
  Their result is a p5 object (``translate()`` returns the renderer): a call must stand
  alone as a statement.
- `P5_COLOURS`: p5 colour helpers that return a p5.Color. Their result may only be passed
  straight into another library call (``brush.fill(lerpColor(a, b, t), 180)``), never
  stored or inspected.
- `P5_CONSTANTS`: p5 values a sketch may read.
- `JS_GLOBALS`: JavaScript globals with the members a sketch may use (``Math.sin``).
- `JS_FUNCTIONS`, `JS_CONSTRUCTORS`, `JS_VALUES`: plain JavaScript a sketch may call,
  construct (``new Map()``) or read.
- `IMPLICIT_MEMBERS`: property names the engine or a library calls without the sketch
  calling them (coercion hooks, thenables, iterators, constructors); a sketch may not
  define or reach them.

`p5_names()` holds every function and value a p5 2.3.4 instance has and every browser global
(generated from the real libraries by scripts/p5_names.py): they name what a refused
identifier is, and which top-level declarations would replace a global.
"""

from __future__ import annotations

import functools
import json
from importlib import resources

P5_VALUES = frozenset({
    "abs", "ceil", "constrain", "dist", "exp", "floor", "fract", "lerp", "log", "mag", "map", "max",
    "min", "norm", "pow", "round", "sq", "sqrt", "sin", "cos", "tan", "asin", "acos", "atan", "atan2",
    "degrees", "radians", "random", "randomGaussian", "noise", "int", "float", "str", "boolean", "hex",
    "unhex", "nf", "nfc", "nfp", "nfs", "shuffle", "red", "green", "blue", "alpha", "hue", "saturation",
    "brightness", "lightness",
})
P5_STATEMENTS = frozenset({
    "createCanvas", "background", "translate", "rotate", "scale", "push", "pop", "resetMatrix",
    "noLoop", "randomSeed", "noiseSeed", "noiseDetail", "angleMode", "colorMode", "pixelDensity",
})
P5_COLOURS = frozenset({"color", "lerpColor"})
P5_FUNCTIONS = P5_VALUES | P5_STATEMENTS | P5_COLOURS
P5_CONSTANTS = frozenset({
    "PI", "HALF_PI", "QUARTER_PI", "TWO_PI", "TAU", "DEG_TO_RAD", "RAD_TO_DEG", "WEBGL", "CLOSE",
    "DEGREES", "RADIANS", "RGB", "HSB", "HSL", "width", "height", "frameCount",
})

MATH_MEMBERS = frozenset({
    "abs", "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "ceil", "clz32", "cos",
    "cosh", "exp", "expm1", "floor", "fround", "hypot", "imul", "log", "log10", "log1p", "log2", "max",
    "min", "pow", "random", "round", "sign", "sin", "sinh", "sqrt", "tan", "tanh", "trunc", "E", "LN10",
    "LN2", "LOG10E", "LOG2E", "PI", "SQRT1_2", "SQRT2",
})
JS_GLOBALS: dict[str, frozenset[str]] = {
    "Math": MATH_MEMBERS,
    "Number": frozenset({"isFinite", "isInteger", "isNaN", "parseFloat", "parseInt", "EPSILON",
                         "MAX_SAFE_INTEGER", "MIN_SAFE_INTEGER", "MAX_VALUE", "MIN_VALUE"}),
    "Array": frozenset({"from", "isArray", "of"}),
    "Object": frozenset({"keys", "values", "entries", "assign"}),  # not fromEntries: keys from data
    "console": frozenset({"log", "info", "warn", "error"}),
}
JS_FUNCTIONS = frozenset({"parseInt", "parseFloat", "isNaN", "isFinite", "Number", "String", "Boolean"})
JS_CONSTRUCTORS = frozenset({"Map", "Set", "Array"})
JS_VALUES = frozenset({"undefined", "NaN", "Infinity"})

IMPLICIT_MEMBERS = frozenset({
    "valueOf", "toString", "toLocaleString", "toJSON", "then", "constructor", "prototype", "__proto__",
    "caller", "callee", "arguments", "handleEvent", "__defineGetter__", "__defineSetter__",
    "__lookupGetter__", "__lookupSetter__",
})

# p5's global-mode lifecycle: the only top-level functions p5 calls.
P5_HOOKS = frozenset({"setup", "draw"})


@functools.cache
def p5_names() -> dict:
    """The real p5 2.3.4 / p5.brush 2.2.2 names (functions, values, brush exports)."""
    raw = resources.files("brushwork.core").joinpath("p5_names.json").read_text()
    return json.loads(raw)


@functools.cache
def all_p5_names() -> frozenset[str]:
    names = p5_names()
    return frozenset(names["functions"]) | frozenset(names["values"])


# Globals p5 itself reads from the window besides the browser's own.
P5_READS = frozenset({"setup", "draw", "mocha", "hitCriticalError", "UPNG", "p5", "brush"})


@functools.cache
def reserved_globals() -> frozenset[str]:
    """Top-level names a sketch may not declare: a top-level function or `var` becomes a window
    property, which replaces what the browser, p5 or p5.brush call by that name."""
    return (frozenset(p5_names()["window"]) | P5_FUNCTIONS | P5_CONSTANTS | frozenset(JS_GLOBALS) | JS_CONSTRUCTORS
            | JS_FUNCTIONS | JS_VALUES | (P5_READS - P5_HOOKS))
