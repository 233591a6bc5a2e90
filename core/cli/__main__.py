"""`python -m funes.cli`: the same as the `funes` console script."""

from funes.cli import main

if __name__ == "__main__":
    main()
