from brushwork.cli import app

app()
