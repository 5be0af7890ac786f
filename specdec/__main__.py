"""``python -m specdec``: the package's command line (see :mod:`specdec.cli`)."""

from specdec.cli import main

raise SystemExit(main())
