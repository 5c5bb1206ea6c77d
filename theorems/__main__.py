import sys

from theorems.cli import main

sys.exit(main())
