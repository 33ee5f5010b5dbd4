from .app import run

run()
