"""python -m rivulet [COMMAND]: the tour (default) and the command-line tools."""
from .cli import main

if __name__ == "__main__":
    main()
