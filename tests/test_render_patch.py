"""The patched p5.brush (brushwork.render.brush_patch, scripts/patch_brush.py): generated from the
pinned build, refused for any other, and painting what upstream paints.

The equivalence test renders 17 sketches (the recipe's eight, the pool sources and painter seeds
that benchmarks/shader.py found moved most, paintings of every tier) with p5.brush's own build
and with the rewritten shader, same seed: the rewrite (`fast`) stays within mean |Δ| 0.05 of
upstream on every sketch, and the default `deterministic` build (which also fixes the edge blur's
undefined derivatives, so it moves edge pixels on purpose) keeps the gate verdict, the paint
fraction and the taste score. The benchmark measures |Δ| and paint fractions on all 48 sketches.
"""

from __future__ import annotations

import asyncio
import functools
import importlib.util
import re
from pathlib import Path

import pytest
from sketch_sets import sketch_set

from brushwork.errors import ConfigError, SetupError
from brushwork.render import RenderConfig, Renderer, assets, brush_patch
from brushwork.render.assets import Libraries
from brushwork.render.image import difference

ROOT = Path(__file__).resolve().parent.parent
SEED = 7
# How far the deterministic build may move what the reward reads (benchmarks/RESULTS.md measures it).
PAINT_TOLERANCE = 0.01   # fraction of the canvas; the gate's own threshold is 0.005 (verdicts compared too)
# On the 0-1 aesthetic. The medium features moved at most 0.012 (nope_chaotic_scribble, 14 k edge pixels).
# Taste v5's linework counted pixels past one depth threshold and so moved recipe_08_lavender 0.041; since v6
# each pixel counts by a ramp over its depth and the most any sketch moved is 0.013 (painter_0; lavender 0.001).
# Taste v7 lowered the top tier's structure floor to the middle tier as the model pays it, which widens the
# span a partial bound weight scales (painter_0 sits on the bound's slope, weight 0.36: span 0.41 -> 0.74):
# painter_0 moves 0.024, the same linework change times 1.8; the other 16 sketches stay within 0.02.
TASTE_TOLERANCE = 0.03
# Besides the recipe: the worst sketch of each comparison in the benchmark's table (chaotic scribble,
# dark on dark red, confetti circles; painter_0's taste), two painter seeds and paintings of every tier.
PICKED = {"nope_chaotic_scribble", "nope_dark_on_dark_red", "nope_confetti_circles", "painter_0", "painter_1",
          "love_peach_hibiscus_soft", "love_misty_hills_dawn", "okay_hills_flat_bands", "nope_muddy_brown_hibiscus"}


@functools.cache
def _sketches() -> tuple[tuple[str, str], ...]:
    every = sketch_set(pool=47, painter=2)
    return tuple((name, code) for name, code in every if name.startswith("recipe_") or name in PICKED)


@pytest.fixture(scope="module")
def upstream_js() -> str:
    try:
        return Libraries.locate().brush.decode()
    except SetupError as e:
        pytest.skip(str(e))


def _shader(library: str) -> str:
    start, end = brush_patch.shader_span(library)
    return library[start:end]


def _patch_script():
    spec = importlib.util.spec_from_file_location("patch_brush", ROOT / "scripts" / "patch_brush.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# -- the generator -------------------------------------------------------------------------------
def test_upstream_mode_is_the_library_byte_for_byte(upstream_js):
    assert brush_patch.patch_library(upstream_js, "upstream") == upstream_js


def test_fast_shader_is_scalar_unrolled_and_without_pow_squares(upstream_js):
    upstream = _shader(upstream_js)
    fast = _shader(brush_patch.patch_library(upstream_js, "fast"))
    assert "pow(1.0-R,2.0)" in upstream and "inout float R[" in upstream
    assert "pow(1.0-R,2.0)" not in fast and "pow(KS,2.0)" not in fast
    assert "[SPECTRAL_SIZE]" not in fast and "for(int i=0;i<SPECTRAL_SIZE" not in fast
    assert fast.count("ksMix=0.;") == 38 and fast.count("float R1_") == 38 and fast.count("float R2_") == 38
    # Each reflectance row keeps upstream's coefficients in upstream's order.
    rows = re.findall(r"R\[(\d+)\]=max\(SPECTRAL_EPSILON,w\*([\d.]+)\+c\*([\d.]+)", upstream)
    for i, w, c in rows:
        assert f"float R1_{i}=max(SPECTRAL_EPSILON,w1*{w}+c1*{c}+" in fast
    # fast keeps upstream's main (derivatives after the early return); only the mixing changed.
    main = upstream[upstream.index("void main(void)"):]
    assert fast.endswith(main)


def test_deterministic_shader_takes_derivatives_before_the_early_return(upstream_js):
    upstream = _shader(upstream_js)
    shader = _shader(brush_patch.patch_library(upstream_js, "deterministic"))
    early_return = "if(maskColor.a==0.0){outColor=source;return;}"
    assert upstream.index("dFdx") > upstream.index(early_return)   # the upstream bug
    assert shader.index("dFdx") < shader.index(early_return)
    assert shader.count("dFdx") == 1 and shader.count(early_return) == 1
    assert "if(!u_isBrush){mixIntensity=clamp(maskColor.a+blurEdge*0.1,0.0,1.0);}" in shader


def test_patched_build_carries_the_licence_and_names_the_patch(upstream_js):
    licence = (assets.PACKAGE_LIBS / "p5.brush.LICENSE.md")
    text = licence.read_text() if licence.is_file() else "MIT License\nCopyright (c) p5.brush"
    patched = brush_patch.patch_library(upstream_js, "deterministic", text)
    banner = patched[:patched.index("*/")]
    assert "MIT License" in banner and "mode deterministic" in banner and "scripts/patch_brush.py" in banner
    assert patched.endswith(upstream_js[brush_patch.shader_span(upstream_js)[1]:])


@pytest.mark.parametrize("mutate, message", [
    (lambda js: js.replace(brush_patch.SHADER_START, "'nothing'"), "matched 0 times"),
    (lambda js: js + ";" + js[js.index(brush_patch.SHADER_START):], "matched 2 times"),
    (lambda js: js.replace("const float EDGE_MIN=0.05", "const float EDGE_MIN=0.06"), "not the 2.2.2 shader"),
])
def test_a_library_that_is_not_the_pinned_build_is_refused(upstream_js, mutate, message):
    with pytest.raises(brush_patch.PatchError, match=message):
        brush_patch.patch_library(mutate(upstream_js), "fast")
    assert brush_patch.patch_library(mutate(upstream_js), "upstream") == mutate(upstream_js)  # served as is


def test_script_writes_both_builds_and_refuses_a_wrong_library(upstream_js, tmp_path):
    (tmp_path / "p5.brush.js").write_text(upstream_js)
    (tmp_path / "p5.brush.LICENSE.md").write_text("MIT License\nCopyright (c) 2023-2026 Alejandro Campos Uribe\n")
    written = _patch_script().write_patched(tmp_path)
    assert sorted(written) == ["p5.brush.deterministic.js", "p5.brush.fast.js"]
    for name in written:
        assert (tmp_path / name).read_text() == brush_patch.patch_library(
            upstream_js, name.split(".")[2], (tmp_path / "p5.brush.LICENSE.md").read_text())
    (tmp_path / "p5.brush.js").write_text(upstream_js.replace("EDGE_MAX=0.35", "EDGE_MAX=0.36"))
    with pytest.raises(SystemExit, match="npm ci"):
        _patch_script().write_patched(tmp_path)
    with pytest.raises(SystemExit, match="vendor_libs.py"):
        _patch_script().write_patched(tmp_path / "missing")


def test_make_setup_runs_the_patch():
    makefile = (ROOT / "Makefile").read_text()
    assert "scripts/patch_brush.py" in makefile and "$(PATCHED)" in makefile.split("setup:")[1].splitlines()[0]
    assert "patch_brush" in (ROOT / "scripts" / "vendor_libs.py").read_text()


def test_libraries_serve_the_written_build_only_when_current(upstream_js, tmp_path):
    libs = Libraries(b"p5", upstream_js.encode(), "2.3.4", "2.2.2", str(tmp_path), "MIT License")
    name, fresh = libs.brush_build("deterministic")
    assert name == "p5.brush.deterministic.js" and fresh.startswith(b"/*! p5.brush 2.2.2")
    assert libs.brush_build("upstream") == ("p5.brush.js", upstream_js.encode())
    (tmp_path / name).write_bytes(b"// stale")   # an older patch on disk is not served
    assert libs.brush_build("deterministic")[1] == fresh
    servers = {mode: assets.AssetServer(libs, mode) for mode in brush_patch.MODES}
    assert len({s.harness_digest for s in servers.values()}) == 3   # the cache key follows the build


def test_brush_shader_setting(monkeypatch):
    monkeypatch.delenv("BRUSHWORK_BRUSH_SHADER", raising=False)
    assert RenderConfig().brush_shader == "deterministic"
    monkeypatch.setenv("BRUSHWORK_BRUSH_SHADER", "upstream")
    assert RenderConfig().brush_shader == "upstream"
    assert RenderConfig(brush_shader="fast").brush_shader == "fast"
    with pytest.raises(ConfigError, match="RenderConfig.brush_shader 'quick' is not one of: deterministic, fast"):
        RenderConfig(brush_shader="quick")
    monkeypatch.setenv("BRUSHWORK_BRUSH_SHADER", "quick")     # a bad value names where it was set
    with pytest.raises(ConfigError, match="BRUSHWORK_BRUSH_SHADER 'quick' is not one of"):
        RenderConfig()
    assert RenderConfig(brush_shader="fast").brush_shader == "fast"


# -- the paintings -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def paintings(renderer) -> dict[str, dict]:
    """{mode: {sketch: RenderResult}} for the picked sketches; deterministic from the session's renderer."""
    sketches = _sketches()

    async def render_all(mode: str) -> dict:
        async with Renderer(RenderConfig(workers=2, timeout_s=60, use_cache=False, brush_shader=mode)) as r:
            results = await asyncio.gather(*(r.render(code, SEED) for _, code in sketches))
            assert f"brush-shader-{mode}" in r.versions
        return dict(zip((name for name, _ in sketches), results))

    runs = {mode: asyncio.run(render_all(mode)) for mode in ("upstream", "fast")}
    assert "brush-shader-deterministic" in renderer.renderer.versions
    results = renderer.render_many([code for _, code in sketches], SEED, use_cache=False)
    runs["deterministic"] = dict(zip((name for name, _ in sketches), results))
    return runs


@pytest.fixture(scope="module")
def taste_model(example_pool):
    from brushwork.score.taste.model import fit

    return fit(example_pool)


@pytest.mark.chromium
@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_rewritten_shader_paints_what_upstream_paints(paintings):
    upstream, fast = paintings["upstream"], paintings["fast"]
    assert len(upstream) == 8 + len(PICKED), PICKED - set(upstream)   # every picked name is still there
    worst = {}
    for name, before in upstream.items():
        assert before.status == "ok" and fast[name].status == "ok", (name, fast[name].detail)
        worst[name] = difference(before.png, fast[name].png)
    assert max(d.mean_abs for d in worst.values()) <= 0.05, worst


@pytest.mark.chromium
@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_default_build_keeps_verdicts_paint_and_taste(paintings, taste_model):
    """Edge pixels move (upstream's derivatives there were undefined: 1-10 k pixels of 360 k, each
    by a few levels), the painting does not: same verdict, paint fraction and taste score."""
    from brushwork.gate import Gate

    check = Gate().check
    upstream, patched = paintings["upstream"], paintings["deterministic"]
    sketches = dict(_sketches())
    off = []
    for name, before in upstream.items():
        after = patched[name]
        assert after.status == "ok", (name, after.detail)
        if check(sketches[name], render=after).ids != check(sketches[name], render=before).ids:
            off.append((name, "gate verdict"))
        if abs(after.paint_fraction - before.paint_fraction) > PAINT_TOLERANCE:
            off.append((name, f"paint fraction {before.paint_fraction:.4f} -> {after.paint_fraction:.4f}"))
        taste = (taste_model.aesthetic(before.png), taste_model.aesthetic(after.png))
        if abs(taste[1] - taste[0]) > TASTE_TOLERANCE:
            off.append((name, f"taste {taste[0]:.4f} -> {taste[1]:.4f}"))
        if (mean := difference(before.png, after.png).mean_abs) > 0.15:   # measured: up to 0.10
            off.append((name, f"mean |delta| {mean:.4f}"))
    assert not off, off
