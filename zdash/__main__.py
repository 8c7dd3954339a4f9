import sys

from zdash.cli import main

sys.exit(main())
