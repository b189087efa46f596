"""python -m intellimetry.book build|assemble [--profile P] | check HTML_DIR
| scoreboard [--profile P] [--from-record [PATH]] | record [--profile P] [ID ...] | readme [--check]

Refused (exit code 2) where this process would use another checkout's package or environment
(intellimetry.pipeline.checkout)."""
import sys

from intellimetry.book import build, check, readme, runs, scoreboard
from intellimetry.pipeline.checkout import refuse_other_checkout

argv = sys.argv[1:]
commands = {"check": check.main, "scoreboard": scoreboard.main, "record": runs.main, "readme": readme.main}
refused = refuse_other_checkout()
if refused:
    sys.exit(refused)
sys.exit(commands[argv[0]](argv[1:]) if argv[:1] and argv[0] in commands else build.main(argv))
