"""Pieces every layer may use and that belong to none: the p5 / p5.brush vocabulary, the
OpenAI-compatible chat client, image helpers. Nothing here imports another brushwork package
except `brushwork.errors` and `brushwork.paths`."""
