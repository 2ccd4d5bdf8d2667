from self_improve.main import main

raise SystemExit(main())
