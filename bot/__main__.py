"""`python -m bot` is the same as the `memorybot` command."""

from bot.cli import main

raise SystemExit(main())
