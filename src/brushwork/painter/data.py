"""Palettes, papers, subjects and the parameters drawn for a painting."""


from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

from brushwork.errors import ConfigError

MAX_FILLS = 35   # each watercolour fill costs a spectral shader pass over its bounding box


@dataclass(frozen=True)
class ProceduralPainting:
    """One procedural painting: the sketch and everything that made it."""

    code: str
    subject: str
    domain: str
    params: dict = field(default_factory=dict)


# subject -> (domain, kind, palettes that suit it). A kind is one layout routine below.
_CATALOGUE: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "peach hibiscus": ("hibiscus", "hibiscus", ("peach", "apricot")),
    "white hibiscus with a red eye": ("hibiscus", "hibiscus", ("white",)),
    "magenta hibiscus": ("hibiscus", "hibiscus", ("magenta",)),
    "yellow hibiscus": ("hibiscus", "hibiscus", ("yellow",)),
    "coral hibiscus": ("hibiscus", "hibiscus", ("coral", "peach")),
    "pink hibiscus": ("hibiscus", "hibiscus", ("pink",)),
    "red hibiscus": ("hibiscus", "hibiscus", ("red",)),
    "lilac hibiscus": ("hibiscus", "hibiscus", ("lilac",)),
    "red poppies": ("flowers", "poppy", ("red", "orange")),
    "pink tulips": ("flowers", "tulip", ("pink", "magenta", "coral")),
    "white daisies": ("flowers", "daisy", ("white",)),
    "pink lotus": ("flowers", "lotus", ("pink", "blush")),
    "purple anemones": ("flowers", "anemone", ("violet", "lilac")),
    "cherry blossom": ("flowers", "blossom", ("blush", "pink")),
    "eucalyptus sprig": ("leaves", "eucalyptus", ("silver", "blue-green")),
    "fern frond": ("leaves", "fern", ("spring", "sage", "deep")),
    "olive branch": ("leaves", "olive", ("olive", "sage")),
    "ginkgo leaves": ("leaves", "ginkgo", ("gold", "spring")),
    "autumn leaves": ("leaves", "autumn", ("autumn", "rust")),
    "tropical leaves": ("leaves", "tropical", ("deep", "spring", "blue-green")),
    "misty hills": ("landscape", "hills", ("dawn", "morning")),
    "lake at dusk": ("landscape", "lake", ("dusk", "violet dusk")),
    "seascape": ("landscape", "sea", ("sea", "grey sea")),
    "mountain lake": ("landscape", "mountains", ("alpine", "autumn alpine")),
    "desert dunes": ("landscape", "dunes", ("sand", "rose sand")),
    "abstract colour field": ("abstract", "bands", ()),
    "abstract circles": ("abstract", "circles", ()),
    "abstract wet-in-wet blooms": ("abstract", "blooms", ()),
}
DOMAINS = ("hibiscus", "flowers", "leaves", "landscape", "abstract")
SUBJECTS: dict[str, tuple[str, ...]] = {d: tuple(s for s, v in _CATALOGUE.items() if v[0] == d) for d in DOMAINS}
_DOMAIN_WEIGHTS = (0.4, 0.2, 0.15, 0.15, 0.1)   # unseeded picks favour the recipe's hibiscus
# Words of a free-form subject that name a kind: "a white hibiscus at noon" -> hibiscus.
_KEYWORDS = {"hibiscus": "hibiscus", "popp": "poppy", "tulip": "tulip", "dais": "daisy", "lotus": "lotus",
             "anemone": "anemone", "blossom": "blossom", "cherry": "blossom", "eucalyptus": "eucalyptus",
             "fern": "fern", "olive": "olive", "ginkgo": "ginkgo", "autumn": "autumn", "maple": "autumn",
             "tropical": "tropical", "monstera": "tropical", "palm": "tropical", "hill": "hills", "lake": "lake",
             "sea": "sea", "ocean": "sea", "coast": "sea", "mountain": "mountains", "dune": "dunes",
             "desert": "dunes", "colour field": "bands", "color field": "bands", "circle": "circles",
             "abstract": "blooms"}
# The table each domain's `palette` names an entry of (in procedural.yaml).
_PALETTE_TABLE = {"hibiscus": "flowers", "flowers": "flowers", "leaves": "leaves", "landscape": "scenes",
                  "abstract": "fields"}
_TINTED_PAPERS = ("blue-grey", "sage", "warm grey")   # white paint shows only on tinted paper
_LIGHT_PAPERS = ("warm white", "cream", "cool white", "blush")
PETAL_SHAPES = ("fan", "round", "pointed")

# Radial flowers: (petal count range, petal shapes, compositions, petal width / length).
_RADIAL = {
    "hibiscus": ((5, 5), ("fan", "fan", "round"), ("centred", "off-centre", "diagonal", "several"), 0.9),
    "poppy": ((4, 5), ("round", "fan"), ("several", "diagonal", "off-centre"), 1.05),
    "anemone": ((5, 6), ("round",), ("centred", "off-centre", "several"), 0.85),
    "daisy": ((8, 11), ("pointed",), ("pair", "off-centre", "centred"), 0.28),
    "blossom": ((5, 5), ("round", "fan"), ("rising", "falling"), 0.95),
}
_PHRASES = {"several": "three blooms of different sizes", "diagonal": "two blooms on a diagonal",
            "pair": "a pair", "bunch": "a bunch", "single": "a single stem", "from left": "from the lower left",
            "from right": "from the lower right", "cluster": "a loose cluster"}
_COMPOSITIONS = {
    "tulip": ("bunch", "pair", "single"), "lotus": ("centred", "off-centre", "pair"),
    "eucalyptus": ("diagonal", "arc", "upright"), "fern": ("diagonal", "arc", "upright"),
    "olive": ("diagonal", "arc"), "ginkgo": ("diagonal", "arc", "upright"),
    "autumn": ("scattered", "falling"), "tropical": ("from left", "from right", "from below"),
    "bands": ("stacked", "tilted"), "circles": ("cluster", "diagonal"), "blooms": ("cluster", "diagonal"),
    **{k: ("low horizon", "high horizon") for k in ("hills", "lake", "sea", "mountains", "dunes")},
    **{k: v[2] for k, v in _RADIAL.items()},
}


@cache
def library() -> dict:
    """The paint box: papers, palettes, header sentences and JavaScript helpers."""
    import yaml

    text = resources.files("brushwork.painter").joinpath("procedural.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)


def palettes_for(domain: str) -> tuple[str, ...]:
    return tuple(library()[_PALETTE_TABLE[domain]])


# -- the public entry point ------------------------------------------------------------------
def _lookup(subject: str) -> tuple[str, str, tuple[str, ...]]:
    if subject in _CATALOGUE:
        return _CATALOGUE[subject]
    text = subject.lower()
    for word, kind in _KEYWORDS.items():
        if word in text:
            domain, _, palettes = next(v for v in _CATALOGUE.values() if v[1] == kind)
            named = tuple(p for p in palettes_for(domain) if p in text)   # "a white hibiscus"
            return domain, kind, named or palettes
    raise ConfigError(f"the procedural painter has no layout for {subject!r}; try one of: {', '.join(_CATALOGUE)}")


def _draw_params(rng: random.Random, kind: str, palettes: tuple[str, ...]) -> dict:
    palette = rng.choice(palettes)
    params = {
        "palette": palette,
        "paper": rng.choice(_TINTED_PAPERS if palette == "white" else _LIGHT_PAPERS),
        "layers": 3 if palette == "white" else rng.choice((1, 2, 2, 3, 3)),
        "bleed": round(rng.triangular(0.05, 0.5, 0.38), 2),
        "texture": round(rng.uniform(0.25, 0.7), 2),
        "composition": rng.choice(_COMPOSITIONS[kind]),
        "scale": round(rng.uniform(0.88, 1.12), 2),
        "jitter": round(rng.uniform(0.0, 0.04), 3),
    }
    if kind in _RADIAL:
        (lo, hi), shapes, _, _ = _RADIAL[kind]
        params |= {"petals": rng.randint(lo, hi), "petal_shape": rng.choice(shapes), "backdrop": rng.random() < 0.4}
    if kind == "lotus":
        params["petals"] = rng.randint(5, 7)
    if kind in _RADIAL or kind in ("tulip", "lotus"):
        params["foliage"] = rng.choice(tuple(library()["foliage"]))
    return params


def _validate(params: dict, domain: str, kind: str) -> None:
    lib = library()
    rules = {
        "palette": (lambda v: v in palettes_for(domain), f"one of {', '.join(palettes_for(domain))}"),
        "paper": (lambda v: v in lib["papers"], f"one of {', '.join(lib['papers'])}"),
        "layers": (lambda v: v in (1, 2, 3), "1, 2 or 3"),
        "bleed": (lambda v: 0.05 <= v <= 0.5, "between 0.05 and 0.5"),
        "texture": (lambda v: 0 <= v <= 1, "between 0 and 1"),
        "scale": (lambda v: 0.5 <= v <= 1.3, "between 0.5 and 1.3"),
        "jitter": (lambda v: 0 <= v <= 0.2, "between 0 and 0.2"),
        "composition": (lambda v: v in _COMPOSITIONS[kind], f"one of {', '.join(_COMPOSITIONS[kind])}"),
        "petals": (lambda v: isinstance(v, int) and 3 <= v <= 14, "a whole number from 3 to 14"),
        "petal_shape": (lambda v: v in PETAL_SHAPES, f"one of {', '.join(PETAL_SHAPES)}"),
        "foliage": (lambda v: v in lib["foliage"], f"one of {', '.join(lib['foliage'])}"),
        "backdrop": (lambda v: isinstance(v, bool), "true or false"),
    }
    for name, value in params.items():
        ok, expected = rules[name]
        if not ok(value):
            raise ConfigError(f"painter parameter {name}={value!r} must be {expected}")

