"""python -m bessemer.bench: the same as `bessemer bench`."""
import sys

from .cli import main

sys.exit(main(sys.argv[1:]))
