"""The procedural painter: a stand-in policy that writes procedural p5.brush sketches.

An offline, deterministic author of valid sketches, used where a model would otherwise
paint: by training (warm-up answers and the tiny run), the environment demo, tests and
benchmarks. It imports nothing from brushwork but `brushwork.errors`, `brushwork.core` and
`brushwork.sketch`.

`paint(seed, subject)` writes a tidy sketch (a few commented helpers, 60-150 lines) that
paints only with the gate's ten brush methods on the recipe's skeleton. What varies
(palette, paper, layers, bleed, texture, petals, composition, scale, colour jitter) is drawn
from the seed and may be overridden by name. Tests and the demo use it, `brushwork pool
generate --procedural` fills pools with it, and its sketches serve as warm-up (SFT) answers
for small models, so the code it writes must read like a good answer.

Palettes, papers and the JavaScript helpers are data (`procedural.yaml`, beside this
module); this module lays out each kind of subject and assembles the sketch.
"""

from __future__ import annotations

import random

from brushwork.errors import ConfigError
from brushwork.painter.data import (
    _DOMAIN_WEIGHTS,
    _PHRASES,
    _RADIAL,
    DOMAINS,
    MAX_FILLS,
    SUBJECTS,
    ProceduralPainting,
    _draw_params,
    _lookup,
    _validate,
    library,
    palettes_for,
)
from brushwork.painter.flowers import _lotus, _radial, _tulips
from brushwork.painter.leaves import _SPRIG, _leaf_list, _sprig
from brushwork.painter.scenes import _SCENE_PARTS, _abstract, _landscape
from brushwork.painter.sketch import _Sketch


def paint(seed: int, subject: str | None = None, **overrides) -> ProceduralPainting:
    """A deterministic painting of `subject` (drawn from `seed` when None). `overrides` replace
    drawn parameters by name: palette, paper, layers, bleed, texture, composition, scale, …"""
    rng = random.Random(f"brushwork-painter:{seed}:{subject or ''}")
    if subject is None:
        subject = rng.choice(SUBJECTS[rng.choices(DOMAINS, weights=_DOMAIN_WEIGHTS)[0]])
    domain, kind, palettes = _lookup(subject)
    params = _draw_params(rng, kind, palettes or palettes_for(domain))
    unknown = sorted(set(overrides) - set(params))
    if unknown:
        raise ConfigError(f"unknown painter parameter(s) {', '.join(unknown)} for {subject!r}; "
                          f"known: {', '.join(sorted(params))}")
    params.update(overrides)
    _validate(params, domain, kind)
    # Details (tints, positions) have their own stream: an override changes only what it names.
    detail = random.Random(f"brushwork-painter-detail:{seed}:{subject}")
    about = library()["about"][kind].format(subject=subject, Subject=subject[:1].upper() + subject[1:],
                                            composition=_PHRASES.get(params["composition"], params["composition"]))
    sketch = _Sketch(about)
    _LAYOUTS[kind](sketch, kind, params, detail)
    return ProceduralPainting(sketch.assemble(params, seed), subject, domain, params)


_LAYOUTS = {**{k: _radial for k in _RADIAL}, "tulip": _tulips, "lotus": _lotus,
            **{k: _sprig for k in _SPRIG}, "autumn": _leaf_list, "tropical": _leaf_list,
            **{k: _landscape for k in _SCENE_PARTS}, "bands": _abstract, "circles": _abstract, "blooms": _abstract}

def subject_for(task_subject: str) -> str:
    """The painter's subject for a task's subject ("a cherry blossom branch" -> "cherry
    blossom"); a subject it does not know is painted as a hibiscus by its colour words."""
    text = task_subject.lower()
    for subjects in SUBJECTS.values():
        for subject in sorted(subjects, key=len, reverse=True):
            if subject in text:
                return subject
    return "peach hibiscus"


__all__ = ["DOMAINS", "MAX_FILLS", "SUBJECTS", "ProceduralPainting", "library", "palettes_for", "paint", "subject_for"]
