"""The environment server: `BrushworkEnvironment` (one per session), the shared `ServerContext`
and the FastAPI app (`app.py`). Clients never import this package."""
