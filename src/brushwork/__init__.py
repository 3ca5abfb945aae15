"""brushwork: teach code models to paint with p5.brush.

Data flow, mirrored by the package layout:
reply -> `sketch` (extract) -> `gate` (static + run-time rules) -> `render` (headless
Chromium) -> `score` -> `env` -> `train` / `eval`, with `pool` beside `score`.
"""

from brushwork.sketch import Sketch, extract_sketch

__all__ = ["Sketch", "__version__", "extract_sketch"]
__version__ = "0.1.0"
