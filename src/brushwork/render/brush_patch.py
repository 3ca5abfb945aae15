"""The p5.brush blend-shader patch: a cheaper, deterministic build of the pinned p5.brush 2.2.2.

p5.brush paints every fill and brush layer through one spectral (Kubelka-Munk) blend fragment
shader; under SwiftShader it is most of a render's CPU. This module rewrites that shader inside
the library's dist build, generated from the upstream text (never hand-edited):

- ``fast``: the same float operations in the same order, with the 38 reflectances as scalars
  instead of arrays passed by ``inout`` copy, the loop-invariant concentrations hoisted, the
  loop unrolled, and ``pow(x, 2.0)`` written ``x * x`` in the K/S and K/M functions
  (SwiftShader's ``pow`` is ``exp2(log2())``: without this the rewrite gains 4 %).
- ``deterministic`` (the default): ``fast`` plus the edge blur's ``dFdx``/``dFdy`` taken before
  the early ``return``. Upstream reads them after it, where their values are undefined, so two
  renders of one sketch and seed differed in 20-100 pixels; now they are byte-identical.
- ``upstream``: p5.brush's file, byte for byte.

Standard library and `brushwork.errors` only: ``scripts/patch_brush.py`` loads both files by
path before the virtualenv exists. Every anchor in the upstream text must match exactly once, and
the shader must be the one this rewrite was written for (`UPSTREAM_SHADER_SHA256`), or
`PatchError` says what to do.
"""

from __future__ import annotations

import hashlib
import re

from brushwork.errors import ConfigError, PatchError

MODES = ("deterministic", "fast", "upstream")
DEFAULT_MODE = "deterministic"
# sha256 of the blend fragment shader's text (as it sits, escaped, in p5.brush 2.2.2's dist build).
UPSTREAM_SHADER_SHA256 = "c76e5d15a3dae83169ef7c86d2a05ade9599b280c60f878fe6b02a63d9a3198d"
SHADER_START = '"#version 300 es\\nprecision highp float;\\n#define GLSLIFY 1\\nuniform bool u_isBrush;'
PATCHED_FILE = "p5.brush.{mode}.js"   # beside p5.brush.js in the package copy

# Anchors in the upstream shader (each must occur exactly once).
_REFLECTANCE = "void spectral_linear_to_reflectance(vec3 lrgb,inout float R[SPECTRAL_SIZE]){"
_XYZ_TO_SRGB = "vec3 spectral_xyz_to_srgb(vec3 xyz){"
_TO_XYZ = "vec3 spectral_reflectance_to_xyz(float R[SPECTRAL_SIZE]){"
_KS = "float KS(float R){return pow(1.0-R,2.0)/(2.0*R);}"
_KM = "float KM(float KS){return 1.0+KS-sqrt(pow(KS,2.0)+2.0*KS);}"
_CONSTANTS = "const float GAMMA=2.4,EPSILON=0.0001;"
_EARLY_RETURN = "if(maskColor.a==0.0){outColor=source;return;}"
_BLUR = re.compile(r"if\(!u_isBrush\)\{(vec2 texelSize=[^;]*;)float scaledAlpha=[^;]*;(float blurEdge=0\.0;)"
                   r"(for\(.*?\}\}blurEdge/=9\.0;)(mixIntensity=clamp\([^;]*\);)\}")
_ROW = re.compile(r"R\[(\d+)\]=(max\(SPECTRAL_EPSILON,[^;]*\));")
_XYZ_ROW = re.compile(r"xyz\+=R\[(\d+)\]\*(vec3\(([^,]*),([^,]*),([^)]*)\));")
_DECOMPOSITION = re.compile(r"(?<![.\w])(lrgb|w|c|m|y|r|g|b)(?!\w)")
SIZE = 38


def shader_span(library: str) -> tuple[int, int]:
    """Where the blend fragment shader's JavaScript string sits in the dist build (quotes excluded)."""
    count = library.count(SHADER_START)
    if count != 1:
        raise PatchError(f"p5.brush's blend shader start matched {count} times, expected exactly once: this is not "
                         "p5.brush 2.2.2's dist build (run `npm ci`, then `python scripts/vendor_libs.py`)")
    start = library.index(SHADER_START) + 1
    end = library.index('"', start)
    return start, end


def _once(text: str, anchor: str) -> int:
    count = text.count(anchor)
    if count != 1:
        raise PatchError(f"anchor {anchor[:60]!r} matched {count} times in p5.brush's blend shader, expected once")
    return text.index(anchor)


def _between(text: str, start: str, end: str) -> str:
    i = _once(text, start)
    return text[i:_once(text, end)]


def _renamed(code: str, suffix: str) -> str:
    """The reflectance decomposition's locals with `suffix` (swizzles such as .r stay)."""
    return _DECOMPOSITION.sub(lambda m: m.group(1) + suffix, code)


def _spectral_mix(shader: str) -> str:
    """`spectral_mix(color1, color2, factor)`, unrolled over the 38 wavelengths with scalars.

    The same operations in the same order as upstream's six-argument `spectral_mix` called with
    tinting strengths 1: the reflectance rows and the CIE weights are copied from its text."""
    reflectance = _between(shader, _REFLECTANCE, _XYZ_TO_SRGB)
    body = reflectance[len(_REFLECTANCE):]
    decomposition = body[:body.index("R[0]=")]
    rows = {int(i): expr for i, expr in _ROW.findall(reflectance)}
    weights = {int(i): (v, y.strip()) for i, v, _, y, _ in _XYZ_ROW.findall(_between(shader, _TO_XYZ, _KS))}
    if sorted(rows) != list(range(SIZE)) or sorted(weights) != list(range(SIZE)):
        raise PatchError(f"expected {SIZE} reflectance rows and {SIZE} CIE rows in p5.brush's blend shader, found "
                         f"{len(rows)} and {len(weights)}")
    out = ["vec3 spectral_mix(vec3 color1,vec3 color2,float factor){",
           "float tintingStrength1=1.;float factor1=1.-factor;float tintingStrength2=1.;float factor2=factor;",
           "vec3 lrgb1=spectral_srgb_to_linear(color1);vec3 lrgb2=spectral_srgb_to_linear(color2);",
           _renamed(decomposition, "1"), _renamed(decomposition, "2")]
    for side in "12":
        out += [f"float R{side}_{i}={_renamed(rows[i], side)};" for i in range(SIZE)]
    for side in "12":
        out.append(f"float luminance{side}=0.;")
        out += [f"luminance{side}+=R{side}_{i}*{weights[i][1]};" for i in range(SIZE)]
    out += ["float concentration1=pow(factor1,2.)*pow(tintingStrength1,2.)*luminance1;",
            "float concentration2=pow(factor2,2.)*pow(tintingStrength2,2.)*luminance2;",
            "float totalConcentration=concentration1+concentration2;",
            "vec3 xyz=vec3(0.);float ksMix;"]
    out += [f"ksMix=0.;ksMix+=KS(R1_{i})*concentration1;ksMix+=KS(R2_{i})*concentration2;"
            f"xyz+=KM(ksMix/totalConcentration)*{weights[i][0]};" for i in range(SIZE)]
    out.append("return spectral_xyz_to_srgb(xyz);}")
    return "".join(out)


def _deterministic_main(main: str) -> str:
    """Upstream's `main` with the edge blur (and its derivatives) before the early return."""
    _once(main, _EARLY_RETURN)
    blur = list(_BLUR.finditer(main))
    if len(blur) != 1:
        raise PatchError(f"the edge blur of p5.brush's blend shader matched {len(blur)} times, expected once")
    texel, start, loop, mix = blur[0].groups()
    main = main[:blur[0].start()] + "if(!u_isBrush){" + mix + "}" + main[blur[0].end():]
    return main.replace(_EARLY_RETURN, start + "if(!u_isBrush){" + texel + loop + "}" + _EARLY_RETURN)


def patch_shader(shader: str, mode: str) -> str:
    """The blend shader for `mode` (the escaped text between the JavaScript string's quotes)."""
    check_mode(mode)
    digest = hashlib.sha256(shader.encode()).hexdigest()
    if digest != UPSTREAM_SHADER_SHA256:
        raise PatchError(f"p5.brush's blend shader has sha256 {digest[:16]}..., not the 2.2.2 shader this patch "
                         "rewrites; pin p5.brush 2.2.2 (package.json) and run `npm ci`, or render with "
                         "brush_shader='upstream'")
    if mode == "upstream":
        return shader
    head = shader[:_once(shader, _REFLECTANCE)]
    xyz_to_srgb = _between(shader, _XYZ_TO_SRGB, _TO_XYZ)
    main = shader[_once(shader, _CONSTANTS):]
    functions = ("float KS(float R){float t=1.0-R;return t*t/(2.0*R);}"
                 "float KM(float KS){return 1.0+KS-sqrt(KS*KS+2.0*KS);}")
    _once(shader, _KM)
    if mode == "deterministic":
        main = _deterministic_main(main)
    return head + xyz_to_srgb + functions + _spectral_mix(shader) + main


def patch_library(library: str, mode: str, licence: str = "") -> str:
    """p5.brush's dist build with its blend shader for `mode`; a patched build starts with a
    comment naming the patch and carrying p5.brush's licence (`licence`, its LICENSE.md)."""
    if check_mode(mode) == "upstream":
        return library
    start, end = shader_span(library)
    shader = patch_shader(library[start:end], mode)
    notice = licence.strip().replace("*/", "* /")
    banner = (f"/*! p5.brush 2.2.2, blend shader rewritten by brushwork (mode {mode}, patch "
              f"{shader_digest(shader)}): generated by scripts/patch_brush.py from the npm package; "
              "see brushwork.render.brush_patch.\n\np5.brush's licence:\n\n" + notice + "\n*/\n")
    return banner + library[:start] + shader + library[end:]


def shader_digest(shader: str) -> str:
    return hashlib.sha256(shader.encode()).hexdigest()[:16]


def check_mode(mode: str) -> str:
    if mode not in MODES:
        raise ConfigError(f"brush shader {mode!r}: use deterministic (the default: faster, byte-identical renders), "
                          "fast (faster, upstream's edge noise) or upstream (p5.brush's own build)")
    return mode
