"""python -m intellimetry.pipeline: the figure runner (see intellimetry.pipeline.runner).

Refused (exit code 2) where this process would use another checkout's package, environment or
notebook kernel (intellimetry.pipeline.checkout)."""
import sys

from intellimetry.pipeline.checkout import refuse_other_checkout
from intellimetry.pipeline.runner import KERNEL, main

sys.exit(refuse_other_checkout(KERNEL) or main())
