"""python -m intellimetry.pipeline: the figure runner (see intellimetry.pipeline.runner)."""
import sys

from intellimetry.pipeline.runner import main

sys.exit(main())
