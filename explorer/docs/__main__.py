import sys

from explorer.docs.site import main

sys.exit(main())
