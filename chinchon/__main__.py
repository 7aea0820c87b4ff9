"""``python -m chinchon``: the ``chinchon`` program."""

from chinchon.cli import main

if __name__ == "__main__":
    main()
