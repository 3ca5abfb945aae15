"""HTML pages people look at: galleries of paintings with their verdicts."""
