from codelens.cli.main import main

raise SystemExit(main())
