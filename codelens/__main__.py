from codelens.cli import main

raise SystemExit(main())
