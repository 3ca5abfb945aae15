"""`python -m brushwork`: the same as the `brushwork` command."""

from brushwork.cli import app

app()
