from companion.app.cli import main

raise SystemExit(main())
