"""`python -m blindchess` is the `blindchess` command."""

from blindchess.cli import main

raise SystemExit(main())
